import java.lang.reflect.Field;

/**
 * Starts DynamoDB Local listening on 127.0.0.1 only: the jar has no option for the interface and
 * its Jetty server listens on all of them. Takes DynamoDB Local's own command-line options.
 * Run with Java's source launcher (`java -cp DynamoDBLocal.jar LoopbackDynamoDbLocal.java …`);
 * it uses reflection only, so it compiles without the jar's classes.
 */
public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    Class<?> runner = Class.forName("software.amazon.dynamodb.services.local.main.ServerRunner");
    Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
    Field serverField = proxy.getClass().getDeclaredField("server");
    serverField.setAccessible(true);
    Object server = serverField.get(proxy);
    Object[] connectors = (Object[]) server.getClass().getMethod("getConnectors").invoke(server);
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to restrict");
    for (Object connector : connectors) connector.getClass().getMethod("setHost", String.class).invoke(connector, "127.0.0.1");
    proxy.getClass().getMethod("start").invoke(proxy);
  }
}

import java.lang.reflect.Field;

/**
 * Starts DynamoDB Local listening on 127.0.0.1 only: the jar has no option for the interface and
 * its Jetty server listens on all of them. Takes DynamoDB Local's own command-line options.
 * Run with Java's source launcher (`java -cp DynamoDBLocal.jar LoopbackDynamoDbLocal.java …`);
 * it uses reflection only, so it compiles without the jar's classes.
 *
 * It exits when its standard input ends: started with a pipe from the process that owns it, it
 * ends with that process however that one ends (even killed with SIGKILL, which leaves it no
 * chance to stop its children), instead of holding the port and the data folder as an orphan.
 */
public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    Thread owner = new Thread(LoopbackDynamoDbLocal::exitWhenInputEnds, "exit-with-owner");
    owner.setDaemon(true);
    owner.start();
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

  /** Reads standard input to its end (the owner never writes to it), then exits as a SIGTERM would make it. */
  private static void exitWhenInputEnds() {
    try {
      while (System.in.read() != -1) {
        // Nothing is sent; whatever is, is not for us.
      }
    } catch (java.io.IOException ignored) {
      // A broken pipe ends it too.
    }
    System.exit(0);
  }
}

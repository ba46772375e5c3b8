import { Duration } from 'aws-cdk-lib';
import { PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Construct } from 'constructs';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

/**
 * Below API Gateway's 30 s, above the DynamoDB client's own retries and time-outs, so a slow
 * dependency ends in the handler's error envelope rather than a gateway 503.
 */
export const API_TIMEOUT = Duration.seconds(25);

export interface ApiFunctionProps extends Omit<ServiceFunctionProps, 'timeout'> {
  /** Beyond `API_TIMEOUT` only for work that also runs outside a request (the nightly summaries). */
  readonly timeout?: Duration;
}

/**
 * A route handler (a route-table entry, or the `$default` route): a service function that answers
 * API Gateway's HTTP API (payload 2.0) within its time limit.
 */
export class ApiFunction extends ServiceFunction {
  /** What the HTTP API's routes to this handler integrate with. */
  readonly integration: HttpLambdaIntegration;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id, { ...props, timeout: props.timeout ?? API_TIMEOUT });
    this.integration = new HttpLambdaIntegration(`${id}Integration`, this.function, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
  }
}

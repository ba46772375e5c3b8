import { App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { deploymentSettings } from './settings.ts';
import { CourseSubmissionStack } from './stack.ts';

const app = new App();
// cdk-nag's AWS Solutions rules: an unacknowledged error fails `cdk synth` and `cdk deploy`.
Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app));

const settings = deploymentSettings(app.node);
new CourseSubmissionStack(app, `CourseSubmissionApi-${settings.stage}`, {
  settings,
  description: `Course submission API (${settings.stage})`,
});
app.synth();

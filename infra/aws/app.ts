import { App } from 'aws-cdk-lib';
import { deploymentSettings } from './settings.ts';
import { CourseSubmissionStack } from './stack.ts';

const app = new App();
const settings = deploymentSettings(app.node);
new CourseSubmissionStack(app, `CourseSubmissionApi-${settings.stage}`, {
  settings,
  description: `Course submission API (${settings.stage})`,
});
app.synth();

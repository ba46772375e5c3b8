import { config } from '#shared/config.ts';
import { platformEndpoint } from '#shared/http/platform-answers.ts';
import { launch } from '#shared/lti/launch.ts';
import { launchAnswer } from '#shared/lti/launch-answer.ts';
import { definition } from './definition.ts';

/** `POST /api/lti/launch`: a redirect to the frontend with the launch code (or a page showing it), or a page naming why not. */
export const handler = platformEndpoint(definition, async ({ body }) => launchAnswer(await launch(body), config('LTI_FRONTEND_URL')));

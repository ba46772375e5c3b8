/** What a launch answers the LMS's browser: the frontend with the code in its fragment, or a page that shows the code. */
import { groupLabels, courseGroups } from '#shared/courses/course.ts';
import type { Launched } from './launch.ts';

export type LaunchAnswer =
  | { readonly kind: 'redirect'; readonly status: 303; readonly location: string }
  | { readonly kind: 'page'; readonly title: string; readonly lines: readonly string[] };

/**
 * A `303` to the frontend with `#lti_code=<code>`: a fragment never reaches a server or a
 * `Referer`. Without a frontend, a page that says what the launch opened and shows the code.
 */
export function launchAnswer({ code, launch }: Launched, frontendUrl: string | undefined): LaunchAnswer {
  if (frontendUrl) return { kind: 'redirect', status: 303, location: `${frontendUrl}#lti_code=${code}` };
  const where =
    launch.semester === null
      ? `This LMS course is not linked to a course here yet; as its ${groupLabels[courseGroups.instructor].toLowerCase()}, you may link it to one of your courses.`
      : `You are in ${launch.semester}/${launch.course} as ${launch.roles.join(', ')}${launch.gradeableId ? `, at ${launch.gradeableId}` : ''}.`;
  return {
    kind: 'page',
    title: 'Launched',
    lines: [where, `Your launch code, valid once for 60 seconds (POST /api/token with lti_code): ${code}`],
  };
}

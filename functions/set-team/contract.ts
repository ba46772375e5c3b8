/** What `set-team` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import {
  badTeamId,
  notAStudent,
  noTeamMembers,
  notTeamGradeable,
  teamChangedMeanwhile,
  teamMemberTwice,
  teamSubmissionsMerged,
  teamSubmissionsTakenAway,
  teamTooBig,
  tooManyTeamChanges,
} from '#shared/courses/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';

const { Team } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: Team,
  fails: [
    gradeableNotFound,
    fail(notTeamGradeable),
    fail(badTeamId),
    fail(noTeamMembers),
    fail(teamMemberTwice),
    fail(teamTooBig),
    fail(notAStudent),
    fail(teamSubmissionsTakenAway),
    fail(teamSubmissionsMerged),
    fail(tooManyTeamChanges),
    fail(teamChangedMeanwhile),
  ],
};

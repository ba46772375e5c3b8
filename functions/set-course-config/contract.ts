/** What `set-course-config` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import {
  accessGroupNeedsSuperuser,
  badAccessGroup,
  badCourseName,
  badTimeZone,
  configEntryMissing,
  configNameMissing,
  notAConfigName,
  notANumber,
  notTrueOrFalse,
  numberTooLarge,
  readOnlySetting,
  settingChangedMeanwhile,
} from '#shared/courses/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { CourseConfig } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: CourseConfig,
  fails: [
    fail(configNameMissing),
    fail(configEntryMissing),
    fail(notAConfigName),
    fail(readOnlySetting),
    fail(notANumber),
    fail(numberTooLarge),
    fail(notTrueOrFalse),
    fail(accessGroupNeedsSuperuser),
    fail(badAccessGroup),
    fail(badCourseName),
    fail(badTimeZone),
    fail(settingChangedMeanwhile),
  ],
};

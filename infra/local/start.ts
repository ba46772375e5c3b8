import { join } from 'node:path';
import { config } from '#shared/config.ts';
import { JAVA_MISSING } from './dynamodb-local.ts';
import { startLocalEnvironment, type LocalEnvironment } from './environment.ts';
import { releaseStrandedLeases, resumeQueues } from './recovery.ts';
import { sandboxNotice } from './sandbox-notice.ts';
import { demoUsers } from './seed.ts';
import { startLocalApi, type LocalApi } from './server.ts';

const port = Number(process.env.PORT ?? 3000);
// CloudWatch reads the functions' metrics from their logs; locally they would only be noise.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
let environment: LocalEnvironment | undefined;
let api: LocalApi | undefined;
let stopping: Promise<never> | undefined;

function stop(exitCode: number): Promise<never> {
  stopping ??= (async () => {
    await api?.close();
    await environment?.stop();
    process.exit(exitCode);
  })();
  return stopping;
}

try {
  const notice = sandboxNotice();
  const corsOrigins = config('CORS_ORIGINS');
  environment = await startLocalEnvironment({
    announce: true,
    corsOrigins,
    // Requests meanwhile answer RETRYABLE (a refused connection); DynamoDB Local's own data may lack its last writes.
    watch: {
      restarting: (how) => console.error(`DynamoDB Local ${how}: starting it again (requests meanwhile answer RETRYABLE)…`),
      restarted: () => console.error('DynamoDB Local is answering again.'),
      gaveUp: (problem) => {
        console.error(`${problem}; stopping the API, which cannot work without it.`);
        void stop(1);
      },
    },
  });
  const released = await releaseStrandedLeases();
  api = await startLocalApi({
    port,
    host: process.env.HOST ?? '127.0.0.1',
    log: true,
    checkAnswers: config('CHECK_ANSWERS'),
    corsOrigins,
    // In memory, the data a queued message is about is gone at a stop, and so is the message.
    ...(environment.inMemory ? {} : { queueJournal: join(environment.dataDir, 'queues') }),
  });
  const resumed = await resumeQueues(api, released);
  console.log(`Course submission API on ${api.url}`);
  console.log(`Submitted files: the local S3 endpoint on ${environment.s3Endpoint}`);
  console.log(
    environment.inMemory
      ? `DynamoDB Local in memory (DYNAMODB_IN_MEMORY=1): its data is gone when the API stops; demo dataset seeded. Other data in ${environment.dataDir}`
      : `Data in ${environment.dataDir}${environment.seeded ? ' (new: demo dataset seeded)' : ''}`,
  );
  console.log(`Demo logins (password = user id): ${demoUsers.map((user) => `${user.userId} (${user.accessLevel})`).join(', ')}`);
  if (resumed.jobs > 0 || resumed.deliveries > 0 || resumed.ltiScores > 0 || resumed.courseJobs > 0)
    console.log(
      `Resumed from the data folder: ${resumed.jobs} grading job(s) queued (${released} taken from a stopped server), ${resumed.deliveries} webhook delivery(ies) pending, ${resumed.ltiScores} LMS score delivery(ies) pending, ${resumed.courseJobs} summaries job(s), gradebook export(s) or similarity run(s) unfinished`,
    );
  if (corsOrigins.length > 0)
    console.log(`CORS (CORS_ORIGINS): pages on ${corsOrigins.join(', ')} may call the API and post files to the local S3 endpoint.`);
  if (config('CHECK_ANSWERS'))
    console.log('Answers are checked against the contract (CHECK_ANSWERS): a mismatch is logged and named in Answer-Mismatch.');
  const sandbox = await notice;
  if (sandbox) console.warn(sandbox);
  console.log(`Try: curl -s -X POST ${api.url}/token -d user_id=student -d password=student`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.log('Stopping…');
      void stop(0);
    });
  }
} catch (error) {
  const message = (error as Error).message;
  console.error(message === JAVA_MISSING ? message : `Could not start the local API: ${message}`);
  await stop(1);
}

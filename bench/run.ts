import { cpus } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { readClassList } from '#shared/courses/class-list.ts';
import { importClassList } from '#shared/courses/enroll.ts';
import { bootstrapCourse } from '#shared/courses/create-course.ts';
import type { Course } from '#shared/courses/course.ts';
import { putTerm } from '#shared/data/terms.ts';
import { putUser } from '#shared/data/users.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { createTables } from '#infra/local/tables.ts';

/**
 * `npm run bench`: measurements against an in-memory DynamoDB Local, printed as one table and
 * kept in bench/RESULTS.md with the machine and date.
 */
interface Result {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

async function classListImport(rows: number): Promise<Result[]> {
  const course: Course = { term: 'b26', course: 'bench', displayName: 'Bench', archived: false, timeZone: 'UTC', accessGroup: 'bench' };
  await putTerm({ termId: 'b26', name: 'Bench', startDate: '2026-01-01', endDate: '2026-12-31' });
  await putUser({ userId: 'bench_instructor', givenName: 'B', familyName: 'I', email: 'b@x.edu', accessLevel: 'faculty' });
  await bootstrapCourse(course, 'bench_instructor');
  const csv = [
    'user_id,first_name,last_name,email,registration_section,group',
    ...Array.from({ length: rows }, (_, i) => `s${i},First${i},Last${i},s${i}@example.edu,${(i % 10) + 1},4`),
  ].join('\n');
  const { rows: parsed } = readClassList(csv);
  let started = performance.now();
  const first = await importClassList(course, parsed);
  const firstSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const second = await importClassList(course, parsed);
  const secondSeconds = (performance.now() - started) / 1000;
  return [
    {
      name: `class list import, ${rows} new students`,
      target: '< 60 s',
      measured: `${firstSeconds.toFixed(1)} s (${first.usersToCreate.length} users created)`,
      met: firstSeconds < 60,
    },
    {
      name: `class list import again (idempotent)`,
      target: 'nothing written',
      measured: `${secondSeconds.toFixed(1)} s, ${second.enrollmentsToWrite.length + second.usersToCreate.length} writes`,
      met: second.enrollmentsToWrite.length + second.usersToCreate.length === 0,
    },
  ];
}

const dynamoDb = await startDynamoDbLocal();
try {
  process.env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
  process.env.TABLE_PREFIX = 'bench-';
  await createTables();
  const results = await classListImport(1000);
  const table = [
    '| benchmark | target | measured | met |',
    '|---|---|---|---|',
    ...results.map((result) => `| ${result.name} | ${result.target} | ${result.measured} | ${result.met ? 'yes' : 'no'} |`),
  ].join('\n');
  console.log(table);
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.versions.node}`;
  await writeFile(
    'bench/RESULTS.md',
    `# Benchmark results\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${machine}, against DynamoDB Local (in memory).\n\n${table}\n`,
  );
} finally {
  await dynamoDb.stop();
}

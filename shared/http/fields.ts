/**
 * The kinds of value a request field can hold, as zod schemas: read alike from JSON, url-encoded
 * and multipart bodies (and query strings and headers, which are strings), each with the message
 * the API answers when a value is not of its kind. Each route's definition
 * (functions/<name>/definition.ts) declares its fields with them; the OpenAPI document renders them (a form field is a string, so each kind
 * also says how it is written in a form).
 */
import * as z from 'zod/mini';
import type { $ZodCheckMaxLengthDef, $ZodRawIssue, $ZodType, GlobalMeta, ParsePayload } from 'zod/v4/core';
import type { Refusal } from '#shared/errors.ts';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** How a field is written in a url-encoded or multipart form, where it differs from JSON. */
export const formSchemas = new WeakMap<$ZodType, JsonSchema>();

const withForm = <T extends $ZodType>(schema: T, form: JsonSchema): T => {
  formSchemas.set(schema, form);
  return schema;
};

/** What a flag or list must be, for its message (`The field X must be …`). */
const mustBeOf = new WeakMap<$ZodType, string>();

const mustBe = <T extends $ZodType>(schema: T, what: string): T => {
  mustBeOf.set(schema, what);
  return schema;
};

/** The messages a field that is not of its kind is refused with; `fieldMessage` picks one per problem. */
export const fieldFails = {
  notString: (field: string) => `The field ${field} must be a string.`,
  tooLong: (field: string, maxLength: number) => `The field ${field} must be at most ${maxLength} characters long.`,
  mustBe: (field: string, what: string) => `The field ${field} must be ${what}.`,
};

interface Doc {
  readonly description: string;
  /** Shown, and checked by the domain with its own message (an id's shape: shared/ids.ts). */
  readonly pattern?: RegExp;
  readonly format?: string;
}

/** `schema`, shown in the OpenAPI document with `meta` (its description, pattern, …). */
export function documented<T extends $ZodType>(schema: T, meta: JsonSchema): T {
  z.globalRegistry.add(schema, meta as GlobalMeta);
  return schema;
}

/** The value refused as not `what` (`The field X must be …`): a transform's answer to a value not of its kind. */
function refused(payload: ParsePayload, what: string): never {
  payload.issues.push({ code: 'custom', input: payload.value, params: { mustBe: what } });
  return z.NEVER;
}

/** A field read by `read` from any value; `read` refuses a value not of its kind with `refused`. */
const readWith = <T>(read: (value: unknown, payload: ParsePayload) => T) => z.pipe(z.unknown(), z.transform(read));

/** A string of at most `maxLength` characters (a number, list, object or file is refused). */
export function text(maxLength: number, doc: Doc): z.ZodMiniString {
  return documented(z.string().check(z.maxLength(maxLength)), {
    description: doc.description,
    ...(doc.pattern ? { pattern: doc.pattern.source } : {}),
    ...(doc.format ? { format: doc.format } : {}),
  });
}

const TRUE_VALUES = new Set<unknown>([true, 'true', 'True', 'TRUE', '1', 1]);
const FALSE_VALUES = new Set<unknown>([false, 'false', 'False', 'FALSE', '0', 0, '']);
const BOOLEAN_STRINGS = ['true', 'True', 'TRUE', '1', 'false', 'False', 'FALSE', '0', ''];
const TRUE_OR_FALSE = 'true or false';

/**
 * A loose boolean as the reference's clients send it: `true`, `"true"`, `"True"`, `"1"`, `1` (and
 * the false forms). `lenient`: anything else reads as false instead of being refused.
 */
export function flag(doc: Doc, options: { lenient?: true } = {}) {
  const strings = { type: 'string', enum: BOOLEAN_STRINGS };
  const schema = documented(
    readWith((value, payload): boolean => {
      if (TRUE_VALUES.has(value)) return true;
      if (FALSE_VALUES.has(value) || options.lenient) return false;
      return refused(payload, TRUE_OR_FALSE);
    }),
    { description: doc.description, anyOf: [{ type: 'boolean' }, strings, { type: 'integer', enum: [0, 1] }] },
  );
  const form = withForm(schema, { description: doc.description, ...strings });
  return options.lenient ? form : mustBe(form, TRUE_OR_FALSE);
}

/**
 * A list: a JSON array of strings, a repeated form field, or one comma-separated string (each
 * entry is split at commas and trimmed; empty entries are dropped). An empty string is no list.
 */
export function list(doc: Doc & { readonly items: string; readonly values?: readonly string[]; readonly maxItems: number }) {
  const item = { type: 'string', ...(doc.values ? { enum: [...doc.values] } : {}) };
  const listOf = `a list of ${doc.items}`;
  const schema = documented(
    readWith((value, payload): string[] | undefined => {
      if (value === '') return undefined;
      const items = Array.isArray(value) ? value : [value];
      if (items.length > doc.maxItems || items.some((entry) => typeof entry !== 'string')) return refused(payload, listOf);
      return (items as string[]).flatMap((entry) => entry.split(',').map((part) => part.trim())).filter((part) => part !== '');
    }),
    {
      description: doc.description,
      anyOf: [
        { type: 'array', items: item, minItems: 1 },
        { type: 'string', description: 'Comma-separated.' },
      ],
    },
  );
  return mustBe(withForm(schema, { type: 'string', description: `${doc.description} Comma-separated, or the field repeated.` }), listOf);
}

/** A number from JSON, or its digits in a string (spaces around them are dropped); '' is none. */
function numberFrom(value: unknown, digits: RegExp): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && digits.test(value.trim())) return Number(value.trim());
  return undefined;
}

const DECIMAL = /^-?\d{1,9}(\.\d{1,6})?$/;
const wholeIn = (number: number | undefined, max: number) =>
  number !== undefined && Number.isInteger(number) && number >= 0 && number <= max ? number : undefined;

const numberDoc = (doc: Doc, json: JsonSchema, form: JsonSchema): [JsonSchema, JsonSchema] => [
  { description: doc.description, ...json },
  { description: doc.description, ...form },
];

/**
 * A whole number from 0 (at most `max`): a JSON number, or its digits in a string. `digits` is
 * how it may be written in a string (by default as any decimal, `2.0` being 2).
 */
export function wholeNumber(doc: Doc & { readonly mustBe: string; readonly max?: number; readonly digits?: RegExp }) {
  const { max = 1_000_000, digits = DECIMAL } = doc;
  const schema = readWith((value, payload): number | undefined => {
    if (value === '') return undefined;
    return wholeIn(numberFrom(value, digits), max) ?? refused(payload, doc.mustBe);
  });
  const [json, form] = numberDoc(
    doc,
    {
      anyOf: [
        { type: 'integer', minimum: 0, ...(Number.isFinite(max) ? { maximum: max } : {}) },
        { type: 'string', pattern: digits.source },
      ],
    },
    { type: 'string', pattern: digits.source },
  );
  return mustBe(withForm(documented(schema, json), form), doc.mustBe);
}

/** A number (negative and fractional too): a JSON number, or one written in a string. */
export function decimal(doc: Doc & { readonly mustBe: string }) {
  const schema = readWith((value, payload): number | undefined => {
    if (value === '') return undefined;
    return numberFrom(value, DECIMAL) ?? refused(payload, doc.mustBe);
  });
  const [json, form] = numberDoc(
    doc,
    { anyOf: [{ type: 'number' }, { type: 'string', pattern: DECIMAL.source }] },
    { type: 'string', pattern: DECIMAL.source },
  );
  return mustBe(withForm(documented(schema, json), form), doc.mustBe);
}

/**
 * A list of whole numbers from 0: a JSON array (at most `maxItems`), a repeated form field, one
 * number, or one comma-separated string; an empty entry is not a number. '' is none.
 */
export function wholeNumbers(doc: Doc & { readonly mustBe: string; readonly maxItems: number }) {
  const schema = readWith((value, payload): number[] | undefined => {
    if (value === '') return undefined;
    const entries =
      Array.isArray(value) && value.length <= doc.maxItems
        ? (value as unknown[])
        : typeof value === 'number'
          ? [value]
          : typeof value === 'string' && value.length <= 1_000
            ? value.split(',').map((part) => part.trim())
            : undefined;
    const numbers = entries?.map((entry) => (entry === '' ? undefined : wholeIn(numberFrom(entry, DECIMAL), 1_000_000)));
    if (numbers && numbers.every((number) => number !== undefined)) return numbers as number[];
    return refused(payload, doc.mustBe);
  });
  const [json, form] = numberDoc(
    doc,
    {
      anyOf: [
        { type: 'array', items: { type: 'integer', minimum: 0 }, maxItems: doc.maxItems },
        { type: 'string', description: 'Comma-separated.' },
      ],
    },
    { type: 'string', description: `${doc.description} Comma-separated, or the field repeated.` },
  );
  return mustBe(withForm(documented(schema, json), form), doc.mustBe);
}

/**
 * Any value, taken as sent: present or not is all the domain asks (`git_repo_id`), or it compares
 * it as written (`revision`). Documented as a number, string or boolean.
 */
export function scalar(doc: Doc) {
  const schema = documented(z.unknown(), { description: doc.description, type: ['string', 'number', 'boolean'], minLength: 1 });
  return withForm(schema, { description: doc.description, type: 'string', minLength: 1 });
}

declare const requiredField: unique symbol;

/** A field its route cannot do without (`required`): the handler's input has it, never undefined. */
export type Required<T extends $ZodType = $ZodType> = T & { readonly [requiredField]: true };

/** What a missing required field is refused with. */
export interface Missing {
  /** The route's own refusal of it (several fields may share one, as the reference words it). */
  readonly refusal: () => Refusal;
  /** An empty string counts as missing (the reference reads '' as not sent). */
  readonly emptyIsMissing: boolean;
  /** A string of nothing but white space counts as missing too. */
  readonly blankIsMissing: boolean;
}

const missingOf = new WeakMap<$ZodType, Missing>();

/**
 * `schema` as a field the route needs: a request without it is refused with `refusal()`, but only
 * once every field sent was found of its kind (as the reference checks kinds first), so the
 * handler gets it typed as present. `emptyIsMissing`: '' counts as not sent; `blankIsMissing`:
 * so does a string of white space only.
 */
export function required<T extends $ZodType>(
  schema: T,
  refusal: () => Refusal,
  options: { emptyIsMissing?: true; blankIsMissing?: true } = {},
): Required<T> {
  const blankIsMissing = options.blankIsMissing === true;
  missingOf.set(schema, { refusal, emptyIsMissing: blankIsMissing || options.emptyIsMissing === true, blankIsMissing });
  return schema as Required<T>;
}

/** How a required field is refused when missing; undefined for an optional one. */
export const missingFailure = (schema: $ZodType): Missing | undefined => missingOf.get(schema);

/** Whether a parsed value counts as not sent for a required field (undefined always does). */
export function isMissing(missing: Missing, value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'string') return false;
  return (missing.emptyIsMissing && value === '') || (missing.blankIsMissing && value.trim() === '');
}

/** The message for a field that is not of its kind: `The field X must be …`. */
export function fieldMessage(issue: $ZodRawIssue): string {
  const field = String(issue.path?.[0] ?? '');
  if (issue.code === 'too_big') return fieldFails.tooLong(field, Number(issue.maximum));
  if (issue.code === 'custom') return fieldFails.mustBe(field, String((issue.params as { mustBe: string }).mustBe));
  return fieldFails.notString(field);
}

/** Every message a field can be refused with (listed in the OpenAPI document). */
export function failsOfField(field: string, schema: $ZodType): string[] {
  const inner = schema instanceof z.ZodMiniOptional ? schema._zod.def.innerType : schema;
  if (inner instanceof z.ZodMiniString) {
    const maxLength = maxLengthOf(inner);
    return [fieldFails.notString(field), ...(maxLength === undefined ? [] : [fieldFails.tooLong(field, maxLength)])];
  }
  const what = mustBeOf.get(inner);
  return what === undefined ? [] : [fieldFails.mustBe(field, what)];
}

/** The least `maxLength` among a string schema's checks, if it has one. */
function maxLengthOf(schema: z.ZodMiniString): number | undefined {
  const maxima = (schema._zod.def.checks ?? []).flatMap((check) => {
    const def = check._zod.def;
    return def.check === 'max_length' ? [(def as $ZodCheckMaxLengthDef).maximum] : [];
  });
  return maxima.length === 0 ? undefined : Math.min(...maxima);
}

/**
 * A CSV document: the text of a `text/csv` body (the body middleware hands it over as this
 * field), or a multipart file (its content read as UTF-8), or a form field's text. '' is none.
 */
export function csvDocument(doc: Doc) {
  const what = 'a CSV file';
  const schema = documented(
    readWith((value, payload): string | undefined => {
      if (typeof value === 'string') return value === '' ? undefined : value;
      const content = (value as { content?: unknown } | null)?.content;
      if (Buffer.isBuffer(content)) return content.length === 0 ? undefined : content.toString('utf8');
      return refused(payload, what);
    }),
    { description: doc.description, type: 'string' },
  );
  return mustBe(withForm(schema, { description: doc.description, type: 'string', format: 'binary' }), what);
}

/** A file of a multipart body: its name exactly as sent (folders included) and its bytes. */
export interface Attachment {
  readonly name: string;
  readonly content: Buffer;
}

/**
 * Files of a multipart body, the field repeated (at most `maxItems`), in the order sent, each with
 * its name as sent; the route checks the names. Anything other than files is refused.
 */
export function attachments(doc: Doc & { readonly maxItems: number }) {
  const what = `files of a multipart/form-data body (at most ${doc.maxItems})`;
  const schema = documented(
    readWith((value, payload): Attachment[] | undefined => {
      if (value === undefined || value === '') return undefined;
      const items = Array.isArray(value) ? value : [value];
      if (items.length > doc.maxItems) return refused(payload, what);
      const files: Attachment[] = [];
      for (const item of items) {
        const { filename, content } = (item ?? {}) as { filename?: unknown; content?: unknown };
        if (!Buffer.isBuffer(content)) return refused(payload, what);
        files.push({ name: typeof filename === 'string' ? filename : '', content });
      }
      // The multipart parser lists a repeated field's files last first.
      return files.reverse();
    }),
    { description: doc.description, type: 'array', items: { type: 'string', format: 'binary' }, maxItems: doc.maxItems },
  );
  return mustBe(withForm(schema, { description: doc.description, type: 'array', items: { type: 'string', format: 'binary' } }), what);
}

/** A JSON list of files to come, each `{"name": string, "size": whole number of bytes}` (at most `maxItems`). */
export function declaredFiles(doc: Doc & { readonly maxItems: number; readonly maxSize: number }) {
  const what = `a list of {"name": string, "size": whole number of bytes} (at most ${doc.maxItems})`;
  const schema = documented(
    readWith((value, payload): { name: string; size: number }[] | undefined => {
      if (value === undefined) return undefined;
      if (!Array.isArray(value) || value.length > doc.maxItems) return refused(payload, what);
      const files: { name: string; size: number }[] = [];
      for (const item of value) {
        const { name, size } = (item ?? {}) as { name?: unknown; size?: unknown };
        if (
          typeof name !== 'string' ||
          name.length > 1024 ||
          typeof size !== 'number' ||
          !Number.isSafeInteger(size) ||
          size < 0 ||
          size > doc.maxSize
        )
          return refused(payload, what);
        files.push({ name, size });
      }
      return files;
    }),
    {
      description: doc.description,
      type: 'array',
      maxItems: doc.maxItems,
      items: {
        type: 'object',
        required: ['name', 'size'],
        properties: { name: { type: 'string', maxLength: 1024 }, size: { type: 'integer', minimum: 0, maximum: doc.maxSize } },
      },
    },
  );
  return mustBe(schema, what);
}

/**
 * A JSON list of files given as text, each `{"path": string, "content": string}` (at most
 * `maxItems`, each path at most 256 characters, their contents at most `maxCharacters` together).
 */
export function textFiles(doc: Doc & { readonly maxItems: number; readonly maxCharacters: number }) {
  const what = `a list of {"path": string, "content": string} (at most ${doc.maxItems}, their contents at most ${doc.maxCharacters} characters together)`;
  const schema = documented(
    readWith((value, payload): { path: string; content: string }[] | undefined => {
      if (value === undefined) return undefined;
      if (!Array.isArray(value) || value.length > doc.maxItems) return refused(payload, what);
      const files: { path: string; content: string }[] = [];
      let characters = 0;
      for (const item of value) {
        const { path, content } = (item ?? {}) as { path?: unknown; content?: unknown };
        if (typeof path !== 'string' || path.length === 0 || path.length > 256 || typeof content !== 'string')
          return refused(payload, what);
        characters += content.length;
        if (characters > doc.maxCharacters) return refused(payload, what);
        files.push({ path, content });
      }
      return files;
    }),
    {
      description: doc.description,
      type: 'array',
      maxItems: doc.maxItems,
      items: {
        type: 'object',
        required: ['path', 'content'],
        properties: { path: { type: 'string', minLength: 1, maxLength: 256 }, content: { type: 'string', maxLength: doc.maxCharacters } },
      },
    },
  );
  return mustBe(schema, what);
}

/** A JSON list of gradeables of any course, each `{"semester", "course", "gradeable_id"}` (strings of at most 256 characters; at most `maxItems`). */
export function gradeableList(doc: Doc & { readonly maxItems: number }) {
  const what = `a list of {"semester": string, "course": string, "gradeable_id": string} (at most ${doc.maxItems})`;
  const names = ['semester', 'course', 'gradeable_id'] as const;
  const schema = documented(
    readWith((value, payload): { semester: string; course: string; gradeable_id: string }[] | undefined => {
      if (value === undefined) return undefined;
      if (!Array.isArray(value) || value.length > doc.maxItems) return refused(payload, what);
      const gradeables: { semester: string; course: string; gradeable_id: string }[] = [];
      for (const item of value) {
        const fields = (item ?? {}) as Record<string, unknown>;
        if (!names.every((name) => typeof fields[name] === 'string' && fields[name] !== '' && fields[name].length <= 256))
          return refused(payload, what);
        gradeables.push({
          semester: fields.semester as string,
          course: fields.course as string,
          gradeable_id: fields.gradeable_id as string,
        });
      }
      return gradeables;
    }),
    {
      description: doc.description,
      type: 'array',
      maxItems: doc.maxItems,
      items: {
        type: 'object',
        required: [...names],
        properties: Object.fromEntries(names.map((name) => [name, { type: 'string', minLength: 1, maxLength: 256 }])),
      },
    },
  );
  return mustBe(schema, what);
}

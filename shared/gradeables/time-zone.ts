/**
 * Wall-clock times in a course's time zone (`YYYY-MM-DD HH:MM:SS`, the reference's format) and
 * the instants they name, with no library: Intl knows every IANA zone.
 */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
/** The forms a gradeable date may take: the reference's local time, or ISO 8601 with an offset. */
export const GRADEABLE_DATE_FORM = new RegExp(`${LOCAL.source}|${WITH_OFFSET.source}`);

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The wall-clock fields of an instant in a zone. */
function wallClock(epochMs: number, timeZone: string): number[] {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(epochMs))
      .map((part) => [part.type, part.value]),
  );
  return ['year', 'month', 'day', 'hour', 'minute', 'second'].map((name) => Number(parts[name]));
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `YYYY-MM-DD HH:MM:SS` in the zone. */
export function toLocalTime(instant: string, timeZone: string): string {
  const [year, month, day, hour, minute, second] = wallClock(Date.parse(instant), timeZone) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return `${pad(year, 4)}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

/**
 * The instant (ISO 8601, UTC) a local time names in the zone; undefined when the text is not a
 * valid time or the zone skips it (a daylight-saving gap). Of two instants (the hour repeated when
 * clocks go back) the earlier is taken.
 */
export function fromLocalTime(local: string, timeZone: string): string | undefined {
  const match = LOCAL.exec(local);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(asUtc).getUTCDate() !== day) return undefined;
  const candidates = [-14, -12, -10, -8, -6, -4, -2, 0, 2, 4, 6, 8, 10, 12, 14]
    .map((hours) => asUtc - offsetAt(asUtc + hours * 3_600_000, timeZone))
    .filter((epochMs) => toLocalTime(new Date(epochMs).toISOString(), timeZone) === local)
    .sort((a, b) => a - b);
  const earliest = candidates[0];
  return earliest === undefined ? undefined : new Date(earliest).toISOString();
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(epochMs: number, timeZone: string): number {
  const [year, month, day, hour, minute, second] = wallClock(epochMs, timeZone) as [number, number, number, number, number, number];
  return Date.UTC(year, month - 1, day, hour, minute, second) - Math.floor(epochMs / 1000) * 1000;
}

/** A date given as the reference's local time, or as ISO 8601 with an explicit offset. */
export function parseGradeableDate(value: string, timeZone: string): string | undefined {
  if (LOCAL.test(value)) return fromLocalTime(value, timeZone);
  if (WITH_OFFSET.test(value)) {
    const epochMs = Date.parse(value);
    return Number.isNaN(epochMs) ? undefined : new Date(Math.floor(epochMs / 1000) * 1000).toISOString();
  }
  return undefined;
}

/**
 * Whether Intl knows the IANA time zone: the one check of a time zone a course or the admin
 * command line is given. Nothing is cached for a name that may come from anyone.
 */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

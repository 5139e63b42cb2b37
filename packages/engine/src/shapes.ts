/**
 * The shapes of the engine's answers, checked where they cross the process boundary: the socket
 * is another process's word, and an answer of the wrong shape must become a named problem (and an
 * in-process answer), never a crash, a hang or a printed "clear". Each check returns where the
 * answer first goes wrong, or undefined. Kept free of imports: the client loads it on every
 * `airspace check`.
 */
import type { EngineMethod } from './protocol.js';

/** Where `value` goes wrong (a path such as `links[2].level` and what was expected), or undefined. */
type Shape = (value: unknown, at: string) => string | undefined;

const LEVELS = ['clear', 'traffic', 'resolution', 'unknown'] as const;
const RANK: Record<string, number> = { clear: 0, traffic: 1, resolution: 2, unknown: 3 };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const wrong = (at: string, what: string): string => `${at || 'the answer'} is not ${what}`;

const str: Shape = (v, at) => (typeof v === 'string' ? undefined : wrong(at, 'a string'));
const num: Shape = (v, at) => (typeof v === 'number' && Number.isFinite(v) ? undefined : wrong(at, 'a number'));
const unit: Shape = (v, at) => (typeof v === 'number' && v >= 0 && v <= 1 ? undefined : wrong(at, 'a number in [0, 1]'));
const bool: Shape = (v, at) => (typeof v === 'boolean' ? undefined : wrong(at, 'true or false'));
const level: Shape = (v, at) => ((LEVELS as readonly unknown[]).includes(v) ? undefined : wrong(at, `a level (${LEVELS.join(', ')})`));
const anything: Shape = () => undefined;

const list =
  (item: Shape): Shape =>
  (v, at) => {
    if (!Array.isArray(v)) return wrong(at, 'a list');
    for (let i = 0; i < v.length; i++) {
      const bad = item(v[i], `${at}[${i}]`);
      if (bad) return bad;
    }
    return undefined;
  };

const record =
  (item: Shape): Shape =>
  (v, at) => {
    if (!isObject(v)) return wrong(at, 'an object');
    for (const [key, x] of Object.entries(v)) {
      const bad = item(x, `${at}.${key}`);
      if (bad) return bad;
    }
    return undefined;
  };

/** An object with these fields (a `?` after a name: optional; other fields are let through). */
const object =
  (fields: Record<string, Shape>): Shape =>
  (v, at) => {
    if (!isObject(v)) return wrong(at, 'an object');
    for (const [name, shape] of Object.entries(fields)) {
      const optional = name.endsWith('?');
      const key = optional ? name.slice(0, -1) : name;
      if (optional && v[key] === undefined) continue;
      const bad = shape(v[key], at ? `${at}.${key}` : key);
      if (bad) return bad;
    }
    return undefined;
  };

const problem = object({ code: str, message: str });
const evidence = object({ message: str, 'risk?': num, 'kind?': str });
const channel = object({ channel: str, weight: num, risk: num, weighted: num, evidence: list(evidence) });
const agent = object({ id: str, label: str, startedAt: num, committedWork: num, files: list(object({ path: str })) });
const link = object({ a: str, b: str, risk: unit, distance: num, level, channels: list(channel), evidence: list(evidence) });
const advisory = object({ a: str, b: str, level, risk: unit, evidence: list(evidence), message: str });
const counts = object({ agents: num, pairs: num, clear: num, traffic: num, resolution: num, unknown: num });

const scanShape = object({
  version: (v, at) => (v === 1 ? undefined : wrong(at, 'version 1')),
  generatedAt: str,
  thresholds: object({ traffic: num, resolution: num }),
  weights: record(num),
  agents: list(agent),
  advisories: list(advisory),
  links: list(link),
  positions: record(anything),
  fileCoordinates: record(anything),
  counts,
  problems: list(problem),
});

/** A scan whose links and advisories name agents it has, and whose advisories are links of that level. */
const scanResult: Shape = (v, at) => {
  const bad = scanShape(v, at);
  if (bad) return bad;
  const scan = v as { agents: { id: string }[]; links: { a: string; b: string; level: string }[]; advisories: typeof scan.links };
  const ids = new Set(scan.agents.map((a) => a.id));
  const levels = new Map(scan.links.map((l) => [`${l.a}\0${l.b}`, l.level]));
  for (const [i, l] of scan.links.entries())
    if (!ids.has(l.a) || !ids.has(l.b)) return `links[${i}] names an agent the answer does not list`;
  for (const [i, a] of scan.advisories.entries())
    if (a.level === 'clear' || levels.get(`${a.a}\0${a.b}`) !== a.level) return `advisories[${i}] is not one of the answer's links`;
  return undefined;
};

const conflict = object({ with: str, level, risk: unit, channels: list(channel), evidence: list(evidence), hunks: list(anything) });
const forecast = object({ with: str, probability: unit, signals: list(anything), evidence: list(evidence) });

/** A check whose level is the worst of its conflicts'. */
const checkResult: Shape = (v, at) => {
  const bad = object({
    path: str,
    'new?': bool,
    'lines?': list(num),
    agent: str,
    level,
    conflicts: list(conflict),
    'forecasts?': list(forecast),
    problems: list(problem),
  })(v, at);
  if (bad) return bad;
  const check = v as { level: string; conflicts: { level: string }[] };
  const worst = Math.max(0, ...check.conflicts.map((c) => RANK[c.level]!));
  return RANK[check.level]! < worst ? `level ${check.level} is milder than its conflicts'` : undefined;
};

const intent = object({ agent: str, paths: list(str), symbols: list(str), declaredAt: str, expiresAt: str });
const advice = object({ with: str, level, risk: unit, evidence: list(evidence), action: str });

const SHAPES: Record<EngineMethod, Shape> = {
  hello: object({ version: num, pid: num }),
  check: checkResult,
  scan: scanResult,
  editorScan: scanResult,
  advisories: object({
    agent: str,
    advisories: list(advice),
    'forecasts?': list(forecast),
    intents: list(intent),
    problems: list(problem),
  }),
  declareIntent: object({ declared: intent, advisories: list(advice), problems: list(problem) }),
  acknowledge: object({ agent: str, with: str, trail: str, receipt: object({ eventId: str, hash: str }) }),
  status: object({ pid: num, version: num, commonDir: str, socket: str, startedAt: str, uptimeMs: num, agents: list(str), mode: str }),
  stop: object({ stopping: bool }),
};

/** Where the engine's answer to `method` goes wrong, or undefined when it has the answer's shape. */
export function answerProblem(method: EngineMethod, value: unknown): string | undefined {
  return SHAPES[method](value, '');
}

/** Whether an error body from the engine is one (`kind` and `message`). */
export function isErrorBody(value: unknown): value is { kind: 'INPUT' | 'ENGINE'; message: string } {
  return isObject(value) && (value.kind === 'INPUT' || value.kind === 'ENGINE') && typeof value.message === 'string';
}

/** Whether a change notification's parameters are one (`reason` and `all`). */
export function isChange(value: unknown): value is { reason: string; all: boolean } {
  return isObject(value) && typeof value.reason === 'string' && typeof value.all === 'boolean';
}

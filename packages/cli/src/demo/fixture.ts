/**
 * The demo airspace: a small TypeScript shop with five agents in worktrees that collide in
 * different ways. Every collision is made on purpose and named here, so the table `airspace demo`
 * prints can be checked against this file:
 *
 *   alice ↔ bob    same lines of src/billing/invoice.ts           → resolution (overlap)
 *   carol ↔ dave   dave's src/api/server.ts imports src/api/routes.ts (untouched), which imports
 *                  carol's src/util/format.ts                       → traffic (dependency, import chain)
 *   erin ↔ frank   erin changes createSession's signature in src/auth/session.ts; frank's new lines
 *                  in src/auth/login.ts call it                     → resolution (typecheck: the merge
 *                                                                     fails TS2554 at frank's call;
 *                                                                     symbols: a signature read;
 *                                                                     dependency alone: traffic)
 *   grace          only edits docs/guide.md                         → clear with everyone
 */
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';

const lines = (...l: string[]): string => l.join('\n') + '\n';

const INVOICE = lines(
  "import { taxFor } from './tax.js';",
  '',
  'export interface Line {',
  '  readonly sku: string;',
  '  readonly quantity: number;',
  '  readonly unitPrice: number;',
  '}',
  '',
  'export function subtotal(lines: readonly Line[]): number {',
  '  let sum = 0;',
  '  for (const line of lines) {',
  '    sum += line.quantity * line.unitPrice;',
  '  }',
  '  return sum;',
  '}',
  '',
  'export function total(lines: readonly Line[], region: string): number {',
  '  const net = subtotal(lines);',
  '  return net + taxFor(net, region);',
  '}',
);

export const DEMO_BASE: Record<string, string> = {
  'package.json': lines('{', '  "name": "demo-shop",', '  "private": true,', '  "type": "module"', '}'),
  'tsconfig.json': lines(
    '{',
    '  "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true },',
    '  "include": ["src"]',
    '}',
  ),
  'README.md': lines('# demo-shop', '', 'A tiny shop used by `airspace demo`.'),
  'docs/guide.md': lines('# Guide', '', 'Run the server with `node src/api/server.js`.'),
  'src/billing/invoice.ts': INVOICE,
  'src/billing/tax.ts': lines(
    'export function taxFor(net: number, region: string): number {',
    "  return region === 'EU' ? net * 0.2 : 0;",
    '}',
  ),
  'src/util/format.ts': lines('export function formatMoney(cents: number): string {', '  return `$${(cents / 100).toFixed(2)}`;', '}'),
  'src/api/routes.ts': lines(
    "import { formatMoney } from '../util/format.js';",
    '',
    'export const routes = {',
    "  '/price': (cents: number) => formatMoney(cents),",
    '};',
  ),
  'src/api/server.ts': lines(
    "import { routes } from './routes.js';",
    '',
    'export function start(port: number): void {',
    '  console.log(`listening on ${port}`, Object.keys(routes));',
    '}',
  ),
  'src/auth/session.ts': lines(
    'export interface Session {',
    '  readonly user: string;',
    '}',
    '',
    'export function createSession(user: string): Session {',
    '  return { user };',
    '}',
  ),
  'src/auth/login.ts': lines(
    "import { createSession } from './session.js';",
    '',
    'export function login(user: string, password: string) {',
    '  if (!password) throw new Error("password required");',
    '  return createSession(user);',
    '}',
  ),
};

export interface DemoRepository {
  readonly fixture: RepoFixture;
  readonly root: string;
  /** The agents and the collision each one is part of, for the banner and for tests. */
  readonly agents: readonly { readonly id: string; readonly does: string }[];
}

/**
 * Builds the demo repository under `parent` (default: the OS temp directory). Commit times are
 * an hour ago so that recency weights are those of live work, not of a year-old fixture.
 */
export function createDemoRepository(parent?: string): DemoRepository {
  const epoch = Math.floor(Date.now() / 1000) - 3600;
  const fixture = createRepoFixture(DEMO_BASE, { epoch, ...(parent ? { parent } : {}) });
  billingPair(fixture);
  formatPair(fixture);
  sessionPair(fixture);
  farAway(fixture);

  return {
    fixture,
    root: fixture.dir,
    agents: [
      { id: 'alice', does: 'rewrites subtotal() in src/billing/invoice.ts (committed)' },
      { id: 'bob', does: 'edits the same loop in src/billing/invoice.ts (uncommitted)' },
      { id: 'carol', does: 'changes formatMoney in src/util/format.ts' },
      { id: 'dave', does: 'edits src/api/server.ts, which imports routes.ts, which imports format.ts' },
      { id: 'erin', does: 'changes createSession(user) to createSession(user, ttlMs) in src/auth/session.ts (committed)' },
      { id: 'frank', does: 'adds lines in src/auth/login.ts that call createSession(user)' },
      { id: 'grace', does: 'edits docs/guide.md only' },
    ],
  };
}

/** alice and bob rewrite the same loop in subtotal(): same base lines → resolution. */
function billingPair(fixture: RepoFixture): void {
  fixture
    .worktree('alice')
    .write(
      'src/billing/invoice.ts',
      INVOICE.replace(
        '  let sum = 0;\n  for (const line of lines) {\n    sum += line.quantity * line.unitPrice;\n  }\n  return sum;',
        '  return lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);',
      ),
    )
    .commit('billing: subtotal with reduce');
  fixture
    .worktree('bob')
    .write(
      'src/billing/invoice.ts',
      INVOICE.replace(
        '  for (const line of lines) {\n    sum += line.quantity * line.unitPrice;\n  }',
        '  for (const line of lines) {\n    if (line.quantity <= 0) continue;\n    sum += Math.round(line.quantity * line.unitPrice);\n  }',
      ),
    );
}

/** carol changes formatMoney; dave edits the server, which reaches it through routes.ts. */
function formatPair(fixture: RepoFixture): void {
  fixture
    .worktree('carol')
    .write(
      'src/util/format.ts',
      lines(
        'export function formatMoney(cents: number, currency = "USD"): string {',
        '  return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(cents / 100);',
        '}',
      ),
    );
  fixture
    .worktree('dave')
    .write(
      'src/api/server.ts',
      lines(
        "import { routes } from './routes.js';",
        '',
        'export function start(port: number, host = "127.0.0.1"): void {',
        '  console.log(`listening on ${host}:${port}`, Object.keys(routes));',
        '}',
      ),
    );
}

/** erin changes createSession's signature; frank's new lines call it. */
function sessionPair(fixture: RepoFixture): void {
  fixture
    .worktree('erin')
    .write(
      'src/auth/session.ts',
      lines(
        'export interface Session {',
        '  readonly user: string;',
        '  readonly expiresAt: number;',
        '}',
        '',
        'export function createSession(user: string, ttlMs: number): Session {',
        '  return { user, expiresAt: Date.now() + ttlMs };',
        '}',
      ),
    )
    .commit('auth: sessions expire');
  fixture
    .worktree('frank')
    .write(
      'src/auth/login.ts',
      lines(
        "import { createSession } from './session.js';",
        '',
        'export function login(user: string, password: string, remember = false) {',
        '  if (!password) throw new Error("password required");',
        '  const session = createSession(user);',
        '  return remember ? { ...session, remember } : session;',
        '}',
      ),
    );
}

/** grace works far away from everyone. */
function farAway(fixture: RepoFixture): void {
  fixture
    .worktree('grace')
    .write(
      'docs/guide.md',
      lines(
        '# Guide',
        '',
        'Run the server with `node src/api/server.js --port 8080`.',
        '',
        '## Deploying',
        '',
        'Copy `dist/` to the host.',
      ),
    );
}

/**
 * Language server protocol fuzz (issue 16): seeded random sessions against the server (in-process,
 * the stand-in engine of its package tests; ~0.15 s a session, hence here and not there) on a generated repository with real worktrees. A session is any order of initialize,
 * initialized, configuration and folder changes, open/change/save/close, files written, worktrees
 * added and removed, commands, malformed frames, shutdown, exit and a closed input; one client in
 * twenty never answers the server's requests. After each,
 * the server answers `airspace/scan` within a bound, or it has exited cleanly (0 after shutdown,
 * 1 otherwise) — never silent.
 *
 *   AIRSPACE_FUZZ_SEED=N         first seed (session i uses seed N + i); printed on failure
 *   AIRSPACE_FUZZ_SESSIONS=K     number of sessions (default 200)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { generateRepo } from '@airspace/bench';
import type { ScanResult } from '@airspace/core';
// The language server's own test harness: the server in-process, and its stand-in engine.
import { createScanner } from '../packages/lsp-server/test/support/fake-scanner.mjs';
import { InProcessClient } from '../packages/lsp-server/test/support/in-process.js';
import { uriOf } from '../packages/lsp-server/test/support/client.js';
import { seededRandom } from '@airspace/core/builders';

const SEED = Number(process.env.AIRSPACE_FUZZ_SEED ?? 20261203);
const SESSIONS = Number(process.env.AIRSPACE_FUZZ_SESSIONS ?? 200);
/** How long the final airspace/scan may take (scans of this repository take tens of ms). */
const ANSWER_MS = 10_000;

const MALFORMED = [
  'Content-Length: abc\r\n\r\n{}',
  'Content-Length: -5\r\n\r\n{}',
  'Content-Length: 99999999999\r\n\r\n{}',
  'Content-Type: application/json\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"x"}',
  'Content-Length: 9\r\n\r\n{bad json',
  'Content-Length: 4000\r\n\r\n{"jsonrpc":"2.0","id":77,',
  'Content-Length: 2\r\n\r\n[]',
  'Content-Length: 32\r\n\r\n{"jsonrpc":"2.0","id":{},"method":"x"}',
  'garbage without any header',
  'Content-Length: 38\n\n{"jsonrpc":"2.0","method":"$/nothing"}',
];

describe('protocol fuzz', () => {
  let repo: RepoFixture;
  let fixed: FixtureCheckout[];
  let target: string;
  let lines: string[];

  beforeAll(() => {
    const { files } = generateRepo({ files: 40, seed: 7 });
    repo = createRepoFixture(files);
    target = Object.keys(files)
      .filter((p) => p.endsWith('.ts') && String(files[p]).split('\n').length >= 12)
      .sort()[0]!;
    lines = String(files[target]).split('\n');
    const alice = repo.worktree('alice');
    alice.write(target, lines.map((l, i) => (i === 5 ? '// alice' : l)).join('\n')).commit('alice');
    const bob = repo.worktree('bob');
    bob.write(target, lines.map((l, i) => (i === 5 ? '// bob' : l)).join('\n'));
    fixed = [alice, bob];
  });
  afterAll(() => repo?.dispose());

  it(`survives ${SESSIONS} random sessions (seed ${SEED})`, async () => {
    for (let i = 0; i < SESSIONS; i++) {
      const seed = SEED + i;
      const trace: string[] = [];
      try {
        await session(seed, trace);
      } catch (error) {
        throw new Error(
          `fuzz session failed: AIRSPACE_FUZZ_SEED=${seed} AIRSPACE_FUZZ_SESSIONS=1\n  steps: ${trace.join(' → ')}\n  ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }, 300_000);

  async function session(seed: number, trace: string[]): Promise<void> {
    const rand = seededRandom(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const added: FixtureCheckout[] = [];
    let made = 0;
    const worktrees = () => [...fixed, ...added];
    const client = new InProcessClient({ createScanner, settings: { debounceMs: Math.floor(rand() * 30) } });
    // Some clients never answer the server's own requests.
    const silentClient = rand() < 0.05;
    if (silentClient)
      for (const method of ['workspace/configuration', 'client/registerCapability'])
        client.connection.onRequest(method, () => new Promise(() => undefined));
    const answered: Promise<unknown>[] = [];
    let initializeSent = false;
    let shutdown = false;
    let version = 1;
    const folderOf = () => {
      const wt = pick(worktrees());
      return rand() < 0.2 ? join(wt.dir, target.split('/')[0]!) : wt.dir;
    };
    const fileOf = () => join(realpathSync(pick(worktrees()).dir), rand() < 0.8 ? target : 'src/new-file.ts');
    const text = () => {
      const at = Math.floor(rand() * lines.length);
      return lines.map((l, k) => (k === at ? `// edit ${Math.floor(rand() * 1000)}` : l)).join('\n');
    };
    // A request's answer (result or error) is all we ask of it here: errors are answers.
    const request = (method: string, params: unknown): void =>
      void answered.push(client.connection.sendRequest(method, params).catch((e: unknown) => e));
    const steps: Record<string, () => Promise<void> | void> = {
      initialize: () => {
        initializeSent = true;
        request('initialize', {
          processId: null,
          rootUri: rand() < 0.2 ? uriOf(folderOf()) : null,
          capabilities: {
            workspace: {
              configuration: rand() < 0.5,
              workspaceFolders: rand() < 0.7,
              didChangeConfiguration: { dynamicRegistration: rand() < 0.5 },
              diagnostics: { refreshSupport: rand() < 0.3 },
            },
            ...(rand() < 0.3 ? { textDocument: { diagnostic: {} } } : {}),
          },
          workspaceFolders:
            rand() < 0.15 ? null : Array.from({ length: Math.floor(rand() * 3) }, () => ({ uri: uriOf(folderOf()), name: 'f' })),
        });
      },
      initialized: () => client.connection.sendNotification('initialized', {}),
      configuration: () =>
        client.connection.sendNotification('workspace/didChangeConfiguration', {
          settings: {
            airspace: pick([{}, { base: 'main' }, { thresholds: { traffic: rand(), resolution: 0.99 } }, { debounceMs: 5 }, null]),
          },
        }),
      folders: () =>
        client.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
          event: {
            added: rand() < 0.6 ? [{ uri: uriOf(folderOf()), name: 'a' }] : [],
            removed: rand() < 0.6 ? [{ uri: uriOf(folderOf()), name: 'r' }] : [],
          },
        }),
      open: () => client.open(fileOf(), text(), version++),
      change: () => client.change(fileOf(), text(), version++),
      save: () => client.save(fileOf()),
      close: () => client.connection.sendNotification('textDocument/didClose', { textDocument: { uri: uriOf(fileOf()) } }),
      write: () => void pick(worktrees()).write(target, text()),
      addWorktree: () => {
        if (added.length >= 2) return;
        added.push(repo.worktree(`fz${seed}-${made++}`).write(target, text()));
      },
      removeWorktree: () => {
        const wt = added.pop();
        if (wt) repo.git('worktree', 'remove', '--force', wt.dir);
      },
      command: () =>
        request(
          'workspace/executeCommand',
          pick([
            { command: 'airspace.declareIntent', arguments: [{ files: [pick(['src/x.ts', '/abs/x.ts', '../out.ts', 42])] }] },
            { command: 'airspace.acknowledge', arguments: [{ other: 'alice' }] },
            { command: 'airspace.nope' },
          ]),
        ),
      hover: () => request('textDocument/hover', { textDocument: { uri: uriOf(fileOf()) }, position: { line: 5, character: 0 } }),
      scan: () => request('airspace/scan', rand() < 0.5 ? {} : { folder: uriOf(folderOf()) }),
      malformed: () =>
        void client.toServer.write(
          rand() < 0.8 ? pick(MALFORMED) : Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 60) }, () => Math.floor(rand() * 256))),
        ),
      shutdown: () => {
        // Before initialize, shutdown is refused (−32002) and changes nothing.
        shutdown ||= initializeSent;
        request('shutdown', null);
      },
      exit: () => client.connection.sendNotification('exit'),
      closeInput: () => void client.toServer.end(),
    };
    const weighted: [string, number][] = [
      ['initialize', 6],
      ['initialized', 6],
      ['configuration', 4],
      ['folders', 4],
      ['open', 5],
      ['change', 5],
      ['save', 3],
      ['close', 2],
      ['write', 3],
      ['addWorktree', 2],
      ['removeWorktree', 1],
      ['command', 2],
      ['hover', 2],
      ['scan', 3],
      ['malformed', 5],
      ['shutdown', 1],
      ['exit', 1],
      ['closeInput', 0.5],
    ];
    const total = weighted.reduce((s, [, w]) => s + w, 0);
    const next = () => {
      let r = rand() * total;
      for (const [name, w] of weighted) if ((r -= w) < 0) return name;
      return weighted[0]![0];
    };
    try {
      const count = 3 + Math.floor(rand() * 14);
      let ended = false;
      for (let k = 0; k < count; k++) {
        const step = next();
        trace.push(step);
        await steps[step]!();
        // The server is on its way out: nothing more can be asked of it.
        if (step === 'exit' || step === 'closeInput') {
          ended = true;
          break;
        }
        if (rand() < 0.3) await new Promise((r) => setTimeout(r, Math.floor(rand() * 30)));
      }
      if (!ended) {
        // The end of the session: the server still answers, and scans if it can.
        const all = Promise.all(answered);
        await Promise.race([
          all,
          new Promise((_, reject) => setTimeout(() => reject(new Error('earlier requests left unanswered')), ANSWER_MS)),
        ]);
        if (!initializeSent) {
          trace.push('(initialize, initialized)');
          await client.connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} }).catch(() => undefined);
          await client.connection.sendNotification('initialized', {});
        }
        const scan = client.connection.sendRequest('airspace/scan', { folder: uriOf(fixed[1]!.dir) }).then(
          (r) => r as ScanResult | null,
          (e: { code?: number }) => e,
        );
        const answer = await Promise.race([scan, new Promise<'silent'>((r) => setTimeout(() => r('silent'), ANSWER_MS))]);
        expect(answer, 'airspace/scan answered').not.toBe('silent');
        // A running server scans: bob and alice collide in the generated file.
        if (!shutdown)
          expect(
            (answer as ScanResult | null)?.agents?.map((a) => a.id),
            'airspace/scan result',
          ).toEqual(expect.arrayContaining(['alice', 'bob']));
        await client.close();
      } else {
        const code = await Promise.race([client.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), ANSWER_MS))]);
        expect(code, 'exit code after exit or a closed input').toBe(shutdown ? 0 : 1);
      }
    } finally {
      if (client.exitCode === undefined) client.toServer.end();
      await Promise.race([client.exited, new Promise((r) => setTimeout(r, 2000))]);
      for (const wt of added) if (existsSync(wt.dir)) repo.git('worktree', 'remove', '--force', wt.dir);
      for (const wt of fixed) wt.write(target, lines.map((l, k) => (k === 5 ? `// ${wt === fixed[0] ? 'alice' : 'bob'}` : l)).join('\n'));
      rmSync(join(fixed[1]!.dir, 'src/new-file.ts'), { force: true });
    }
  }
});

/**
 * The MCP server's tools over the SDK's in-memory transport, on a stand-in backend: what each
 * tool asks the engine, and how a mistake or a failure comes back to the model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { InputError } from '@airspace/engine';
import type { Backend, Method } from '../src/backend.js';
import { createAirspaceMcpServer } from '../src/server.js';

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function connect(answers: Partial<Record<Method, (params: Record<string, unknown>) => unknown>>, agent?: string) {
  const calls: [Method, Record<string, unknown>][] = [];
  const backend: Backend = {
    async call<T>(method: Method, params: Record<string, unknown>): Promise<T> {
      calls.push([method, params]);
      const answer = answers[method];
      if (!answer) throw new Error(`no ${method}`);
      return answer(params) as T;
    },
    via: () => 'engine',
    dispose: async () => undefined,
  };
  const server = createAirspaceMcpServer({ cwd: '/home/alice/agent', ...(agent ? { agent } : {}) }, backend);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  open.push(client);
  return { client, calls };
}

const clear = { path: 'src/a.ts', agent: 'alice', level: 'clear', conflicts: [], problems: [] };
type Answer = { content: { text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };

describe('airspace mcp tools', () => {
  it("passes a check's path and lines (and the agent it speaks for) to the engine", async () => {
    const { client, calls } = await connect({ check: () => clear }, 'alice');
    const answer = (await client.callTool({ name: 'check_edit', arguments: { path: 'src/a.ts', start_line: 7, end_line: 9 } })) as Answer;
    expect(calls).toEqual([['check', { target: 'src/a.ts', lines: '7-9', agent: 'alice' }]]);
    expect(answer.structuredContent).toMatchObject({ level: 'clear', action: 'go-on' });
    await client.callTool({ name: 'check_edit', arguments: { path: 'b.ts', start_line: 3 } });
    expect(calls[1]).toEqual(['check', { target: 'b.ts', lines: '3-3', agent: 'alice' }]);
  });

  it("gives a check's forecast in the text and the structured answer, and keeps the action", async () => {
    const forecast = {
      with: 'carol',
      probability: 0.21,
      signals: [{ signal: 'past-conflicts', value: 0.6, weight: 0.4 }],
      evidence: [{ message: 'src/a.ts conflicted in 3 of 5 past merges that changed it' }],
    };
    const { client } = await connect({ check: () => ({ ...clear, forecasts: [forecast] }) }, 'alice');
    const answer = (await client.callTool({ name: 'check_edit', arguments: { path: 'src/a.ts' } })) as Answer;
    expect(answer.structuredContent).toMatchObject({ level: 'clear', action: 'go-on', forecasts: [forecast] });
    expect(answer.content[0]!.text).toContain(
      'FORECAST with carol: no advisory yet, 21% chance of colliding later (past-conflicts 0.60).\n- src/a.ts conflicted in 3 of 5 past merges that changed it',
    );
  });

  it("turns minutes into the declaration's lifetime and symbols through as given", async () => {
    const declared = {
      declared: { agent: 'alice', paths: ['a.ts'], symbols: ['b.ts#f'], declaredAt: 'now', expiresAt: 'later' },
      advisories: [],
      problems: [
        {
          code: 'INTENT_SYMBOL_NOT_FOUND',
          agent: 'alice',
          message: 'alice declared b.ts#f, but the merge base defines no f in b.ts; the whole file counts.',
        },
      ],
    };
    const { client, calls } = await connect({ declareIntent: () => declared });
    const answer = (await client.callTool({
      name: 'declare_intent',
      arguments: { paths: ['a.ts'], symbols: ['b.ts#f'], note: 'why', minutes: 5 },
    })) as Answer;
    expect(calls).toEqual([['declareIntent', { paths: ['a.ts'], symbols: ['b.ts#f'], note: 'why', ttlMs: 300_000 }]]);
    expect(answer.content[0]!.text).toMatch(
      /^Declared for alice: a\.ts, b\.ts#f \(counts now, until later\)\. alice declared b\.ts#f, but the merge base defines no f in b\.ts; the whole file counts\. Nobody else/,
    );
  });

  it('reports a mistake with how to fix it, and a failure with what to do meanwhile', async () => {
    const { client } = await connect({
      check: () => {
        throw new InputError('src is a directory; check takes the file about to be edited.');
      },
      advisories: () => {
        throw new Error('the engine went away');
      },
    });
    const mistake = (await client.callTool({ name: 'check_edit', arguments: { path: 'src' } })) as Answer;
    expect(mistake.isError).toBe(true);
    expect(mistake.content[0]!.text).toBe('src is a directory; check takes the file about to be edited. Fix the arguments and call again.');
    const failure = (await client.callTool({ name: 'list_advisories', arguments: {} })) as Answer;
    expect(failure.isError).toBe(true);
    expect(failure.content[0]!.text).toMatch(/^the engine went away\. Airspace could not answer; go on with care/);
  });
});

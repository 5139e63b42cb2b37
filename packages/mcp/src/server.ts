/**
 * `airspace mcp`: Airspace as a Model Context Protocol server over stdio, for a coding agent in
 * one worktree. Tools: check_edit, list_advisories, declare_intent, acknowledge; resource
 * `airspace://scan` (the scan JSON). Answers come from the repository's resident engine, else
 * in-process (backend.ts). Stdout carries protocol messages only; logs go to stderr.
 */
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import * as z from 'zod';
import type { ScanResult } from '@airspace/core';
import {
  advisoriesText,
  checkText,
  declaredText,
  inWorkTree,
  InputError,
  type AcknowledgeResult,
  type AdvisoriesResult,
  type CheckResult,
  type DeclareIntentResult,
} from '@airspace/engine';
import { createBackend, type Backend } from './backend.js';
import { BoundedStdioTransport } from './stdio-transport.js';
import { scanSummary } from './summary.js';

export interface McpServerOptions {
  /** The agent's directory (its worktree, or inside it). */
  readonly cwd: string;
  /** Speak for this agent id instead of the one of `cwd`'s worktree. */
  readonly agent?: string;
  /** Use the resident engine (default true; `AIRSPACE_ENGINE=off` also turns it off). */
  readonly engine?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly version?: string;
}

const INSTRUCTIONS = `Airspace watches the other coding agents working in parallel git worktrees of this repository and tells you when your edit would collide with theirs.
Before you edit a file, call check_edit with its path (and the lines, if you know them). Do what its last line says: go on, transmit intent (call declare_intent and tell the other agent), steer away (the other agent has right of way: do not make this edit now), or hold course.
Call declare_intent as soon as you know which files you will change: it warns the others before you touch anything (empty paths withdraw it). Call list_advisories from time to time, and acknowledge once you have coordinated about an advisory. Read airspace://summary for everyone's work in brief.`;

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

function ok(text: string, data: object): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data as Record<string, unknown> };
}

async function answer(work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    const message = /[.!?]$/.test(raw.trim()) ? raw.trim() : `${raw.trim()}.`;
    const hint =
      error instanceof InputError
        ? ' Fix the arguments and call again.'
        : ' Airspace could not answer; go on with care and try again later.';
    return { content: [{ type: 'text', text: `${message}${hint}` }], isError: true };
  }
}

function linesOf(start?: number, end?: number): string | undefined {
  if (start === undefined && end === undefined) return undefined;
  const s = start ?? end!;
  return `${s}-${end ?? s}`;
}

/** What every tool needs: the server's options, its backend, and the agent it speaks for. */
interface ToolContext {
  readonly options: McpServerOptions;
  readonly backend: Backend;
  readonly me: { agent?: string };
}

/** Builds the server (tools and resource) on a backend; `connect` it to a transport. */
export function createAirspaceMcpServer(options: McpServerOptions, backend: Backend): McpServer {
  const server = new McpServer({ name: 'airspace', version: options.version ?? '0.1.0' }, { instructions: INSTRUCTIONS });
  const tools: ToolContext = { options, backend, me: options.agent ? { agent: options.agent } : {} };
  registerCheckEdit(server, tools);
  registerListAdvisories(server, tools);
  registerDeclareIntent(server, tools);
  registerAcknowledge(server, tools);
  registerResources(server, backend);
  return server;
}

/** check_edit: the verdict on an edit before it is made. */
function registerCheckEdit(server: McpServer, { options, backend, me }: ToolContext): void {
  server.registerTool(
    'check_edit',
    {
      title: 'Check an edit before making it',
      description:
        'Call before editing a file. Says whether another agent is working close to these lines (level clear, traffic or resolution), who, the evidence, their diff, and what to do next: go on, transmit intent, steer away or hold course.',
      inputSchema: {
        path: z
          .string()
          .describe(
            'The file you are about to edit: relative to your working directory, or absolute. It may not exist yet (about to be created).',
          ),
        start_line: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('First line you will change, in the file as it is now. Leave out for the whole file.'),
        end_line: z.number().int().positive().optional().describe('Last line you will change (default: start_line).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ path, start_line, end_line }) =>
      answer(async () => {
        // No agent works outside the repository's work trees (or inside .git): nothing to check
        // there. (A server started outside any repository leaves that to the engine, which says so.)
        if (path.trim() !== '' && inWorkTree(resolve(options.cwd, 'file')) && !inWorkTree(resolve(options.cwd, path)))
          return ok(
            `CLEAR: ${path} is outside the repository's work trees (or inside .git), where no other agent works; it needs no check. Next: go on with the edit.`,
            { path, outside: true, level: 'clear', conflicts: [], action: 'go-on' },
          );
        const lines = linesOf(start_line, end_line);
        const result = await backend.call<CheckResult>('check', { target: path, ...(lines ? { lines } : {}), ...me });
        const { text, action } = checkText(result);
        return ok(text, { ...result, action });
      }),
  );
}

/** list_advisories: the pairs close to this agent, worst first. */
function registerListAdvisories(server: McpServer, { backend, me }: ToolContext): void {
  server.registerTool(
    'list_advisories',
    {
      title: 'My advisories',
      description:
        'Lists the other agents whose current work is close to yours, worst first, with evidence, their diff and what to do next; and the intent other agents have declared.',
      inputSchema: { agent: z.string().optional().describe('Another agent id to ask for (default: you).') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ agent }) =>
      answer(async () => {
        const result = await backend.call<AdvisoriesResult>('advisories', agent ? { agent } : me);
        const { text, action } = advisoriesText(result);
        return ok(text, { ...result, action });
      }),
  );
}

/** declare_intent: files and symbols about to change (empty withdraws). */
function registerDeclareIntent(server: McpServer, { backend, me }: ToolContext): void {
  server.registerTool(
    'declare_intent',
    {
      title: 'Declare what you are about to change',
      description:
        'Tells the other agents which files (and symbols) you are about to change, before you edit them; it counts at once and expires. Replaces your previous declaration; empty paths and symbols withdraw it. Answers who is already close to it.',
      inputSchema: {
        paths: z
          .array(z.string())
          .default([])
          .describe(
            'Files you will change, relative to your working directory or absolute. Empty (and no symbols): withdraw your declaration.',
          ),
        symbols: z
          .array(z.string())
          .default([])
          .describe(
            'Functions or classes you will change, as path#name (e.g. src/billing.ts#total or src/a.ts#Parser.parse); each counts as that definition (also when its file is in paths), or its whole file if the file does not define it.',
          ),
        note: z.string().max(500).optional().describe('One sentence for the others: what and why.'),
        minutes: z
          .number()
          .positive()
          .max(24 * 60)
          .optional()
          .describe('How long the declaration holds (default 60).'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ paths, symbols, note, minutes }) =>
      answer(async () => {
        const result = await backend.call<DeclareIntentResult>('declareIntent', {
          paths,
          symbols,
          ...(note ? { note } : {}),
          ...(minutes ? { ttlMs: minutes * 60_000 } : {}),
          ...me,
        });
        const { text, action } = declaredText(result);
        return ok(text, { ...result, action });
      }),
  );
}

/** acknowledge: an advisory seen and acted on, recorded in the trail. */
function registerAcknowledge(server: McpServer, { backend, me }: ToolContext): void {
  server.registerTool(
    'acknowledge',
    {
      title: 'Acknowledge an advisory',
      description:
        "Records that you have seen the advisory between you and another agent and acted on it (appended to the pair's shadow trail). Call after you have coordinated or steered away.",
      inputSchema: {
        with: z.string().describe('The other agent of the advisory (as named by check_edit or list_advisories).'),
        note: z.string().max(500).optional().describe('What you did about it, in one sentence.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ with: other, note }) =>
      answer(async () => {
        const result = await backend.call<AcknowledgeResult>('acknowledge', { with: other, ...(note ? { note } : {}), ...me });
        const receipt = `receipt ${result.receipt.hash.slice(0, 12)}`;
        const said = result.already
          ? `Already acknowledged: ${result.agent} acknowledged the advisory with ${result.with} before (${result.trail}, ${receipt}); nothing new was recorded.`
          : `Acknowledged the advisory between ${result.agent} and ${result.with}; recorded in ${result.trail} (${receipt}).`;
        return ok(`${said} Next: go on as agreed; check_edit again before editing shared lines.`, result);
      }),
  );
}

/** airspace://scan (the scan JSON) and airspace://summary (the same in brief). */
function registerResources(server: McpServer, backend: Backend): void {
  server.registerResource(
    'airspace',
    'airspace://scan',
    {
      title: 'The airspace now',
      description:
        'Every agent, every pair with its level, risk, probability of colliding and evidence, and the advisories: the JSON of `airspace scan --json`.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const result = await backend.call<ScanResult>('scan', {});
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result, null, 2) }] };
    },
  );
  server.registerResource(
    'airspace-summary',
    'airspace://summary',
    {
      title: 'The airspace now, in brief',
      description:
        'Each agent with its changed and declared files, each pair above clear with its level, risk, right of way and first evidence, and the forecasts: a few hundred bytes per agent, where airspace://scan is the full scan JSON.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const result = await backend.call<ScanResult>('scan', {});
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(scanSummary(result)) }] };
    },
  );
}

/** Runs the server on stdio until the client goes away (the transport closes, or stdin ends). */
export async function runMcpServer(options: McpServerOptions, transport: Transport = new BoundedStdioTransport()): Promise<void> {
  const log = (m: string): void => void process.stderr.write(`airspace mcp: ${m}\n`);
  const backend = createBackend({ cwd: resolve(options.cwd), engine: options.engine !== false, env: options.env ?? process.env, log });
  const server = createAirspaceMcpServer(options, backend);
  // The stdio transport closes at the end of its input.
  const closed = new Promise<void>((resolveClosed) => (server.server.onclose = () => resolveClosed()));
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  await backend.dispose();
}

/**
 * `airspace trail create|ack|revise|reobserve|summarize|verify FILE`: the passive shadow receipt
 * trail (docs/trail.md) over one JSON file. Every change is written atomically (temporary file,
 * rename, under a lock); a refused or failed change leaves the old file as it was. A failed
 * verification exits 1 with its reason code.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import {
  appendReobservation,
  appendScopeRevision,
  acknowledgeAdvisory,
  createShadowTrail,
  firstDuplicateKey,
  readNamedFile,
  summarizeShadowTrail,
  TrailError,
  updateTrailFile,
  verifyShadowTrailText,
  withTrailLock,
  writeTrailFileAtomic,
  type DependencyGraphInput,
  type ShadowTrail,
  type ShadowTrailSummary,
} from '@airspace/trail';
import { CliError, ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { printable, printableDeep } from '../report/printable.js';

interface EventFlags {
  readonly now?: string;
  readonly eventId?: string;
  readonly json?: boolean;
}

/** A trail refusal as a CLI error: the sentence, then its stable code. */
function refused(error: unknown): never {
  if (error instanceof TrailError) throw new CliError(`${error.message.replace(/\.$/, '')} [${error.code}]`);
  throw error;
}

async function readJson(io: Io, file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readNamedFile(resolve(io.cwd, file));
  } catch (error) {
    throw new CliError(`Cannot read ${what} ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${what} ${file} is not JSON: ${(error as Error).message}`);
  }
  // JSON.parse keeps the last of two equal keys; another reader may keep the first: refuse to guess.
  const duplicate = firstDuplicateKey(text);
  if (duplicate) throw new CliError(`${what} ${file} gives ${duplicate} twice in one object; each key may appear once.`);
  return value;
}

function eventOptions(flags: EventFlags): { now?: string; eventId?: string } {
  return { ...(flags.now !== undefined ? { now: flags.now } : {}), ...(flags.eventId !== undefined ? { eventId: flags.eventId } : {}) };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const LEVEL: Record<string, string> = { clear: 'CLEAR', traffic: 'TRAFFIC', resolution: 'RESOLUTION', unknown: 'UNKNOWN' };

/** The human summary `summarize` prints (and the other commands print after a change). */
export function renderSummary(unsafe: ShadowTrailSummary): string {
  const s = printableDeep(unsafe); // agent ids and notes come from files: shown escaped, never obeyed
  const a = s.latestAdvisory;
  const lines = [
    `Trail ${s.trailId}: ${s.agents.join(' × ')}, task ${s.taskId}, repository ${s.repositoryId}, ${s.receipts} receipt${s.receipts === 1 ? '' : 's'}`,
    `Latest advisory (${a.kind} ${a.eventId}, ${a.time}${a.basis === 'declared' ? ', declared scope' : ''}): ${LEVEL[a.level]}${a.risk === null ? '' : `, risk ${a.risk.toFixed(2)}`}`,
    `  ${a.statement}`,
  ];
  if (a.levelReason) lines.push(`  why: ${a.levelReason}`);
  for (const e of a.evidence.slice(0, 5)) lines.push(`  - ${e.message}`);
  lines.push(`Acknowledged by: ${s.acknowledgements.map((k) => `${k.agentId} (${k.time})`).join(', ') || 'nobody'}`);
  if (s.awaitingAcknowledgement.length > 0) lines.push(`Awaiting acknowledgement: ${s.awaitingAcknowledgement.join(', ')}`);
  if (s.historicalAcknowledgers.length > 0)
    lines.push(
      `Historical acknowledgers (earlier advisories): ${s.historicalAcknowledgers.map((k) => `${k.agentId} of ${k.advisoryEventId}`).join(', ')}`,
    );
  for (const r of s.scopeRevisions)
    lines.push(
      `Scope revision by ${r.agentId} at ${r.time}: authorizationRef ${JSON.stringify(r.authorizationRef.ref)} (${r.authorizationRef.label})`,
    );
  lines.push(`Outcome: ${s.outcome} — the trail issues no grants and sends no messages.`);
  return `${lines.join('\n')}\n`;
}

function report(io: Io, file: string, trail: ShadowTrail, flags: EventFlags, what: string): void {
  const summary = summarizeShadowTrail(trail);
  if (flags.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else io.stdout.write(`${file}: ${what} (event ${trail.receipts.at(-1)!.eventId}).\n${renderSummary(summary)}`);
}

function withEventOptions(command: Command): Command {
  return command
    .option('--now <time>', 'the event time, ISO 8601 (default: now); observations are judged against it')
    .option('--event-id <id>', 'the event id (default: a random UUID)')
    .option('--json', 'print the trail summary as JSON');
}

async function readGraph(io: Io, file: string | undefined): Promise<DependencyGraphInput | undefined> {
  if (file === undefined) return undefined;
  return (await readJson(io, file, 'graph')) as DependencyGraphInput;
}

export function trailCommand(io: Io): Command {
  const trail = new Command('trail').description(
    'the passive shadow receipt trail of one two-agent change: verifiable receipts of advisories, acknowledgements and declared scope revisions',
  );
  addCreateCommand(trail, io);
  addAckCommand(trail, io);
  addReviseCommand(trail, io);
  addReobserveCommand(trail, io);
  addSummarizeCommand(trail, io);
  addVerifyCommand(trail, io);
  return trail;
}

function addCreateCommand(trail: Command, io: Io): void {
  withEventOptions(
    trail
      .command('create <file>')
      .description('start a trail file from two observations (JSON) and record the advisory for them')
      .requiredOption('--a <observation>', "the first agent's observation (JSON file)")
      .requiredOption('--b <observation>', "the second agent's observation (JSON file)")
      .option('--graph <graph>', 'dependency graph JSON { "edges": [[from, to], …] } (default: none; `airspace graph --json` output works)')
      .option('--trail-id <id>', 'the trail id (default: a random UUID)'),
  ).action(async (file: string, flags: EventFlags & { a: string; b: string; graph?: string; trailId?: string }) => {
    const path = resolve(io.cwd, file);
    const [a, b, graph] = await Promise.all([
      readJson(io, flags.a, 'observation'),
      readJson(io, flags.b, 'observation'),
      readGraph(io, flags.graph),
    ]);
    const created = await withTrailLock(path, async () => {
      if (existsSync(path))
        throw new CliError(`${file} already exists; a new trail never replaces a file. Choose another name or remove it yourself.`);
      const next = await createShadowTrail(a as never, b as never, {
        ...eventOptions(flags),
        ...(graph ? { graph } : {}),
        ...(flags.trailId ? { trailId: flags.trailId } : {}),
      }).catch(refused);
      await writeTrailFileAtomic(path, next);
      return next;
    });
    report(io, file, created, flags, 'trail created');
  });
}

function addAckCommand(trail: Command, io: Io): void {
  withEventOptions(
    trail
      .command('ack <file>')
      .description("record one observed agent's acknowledgement of the latest advisory")
      .requiredOption('--agent <id>', 'the acknowledging agent (one of the two observed)')
      .option('--advisory <eventId>', 'the advisory acknowledged (default: the latest; only the latest is accepted)')
      .option('--note <text>', 'a note kept in the receipt'),
  ).action(async (file: string, flags: EventFlags & { agent: string; advisory?: string; note?: string }) => {
    const { trail: next } = await acknowledgeAdvisory(
      resolve(io.cwd, file),
      {
        agentId: flags.agent,
        ...(flags.advisory ? { advisoryEventId: flags.advisory } : {}),
        ...(flags.note !== undefined ? { note: flags.note } : {}),
      },
      eventOptions(flags),
    ).catch(refused);
    report(io, file, next, flags, `acknowledgement by ${flags.agent} recorded`);
  });
}

function addReviseCommand(trail: Command, io: Io): void {
  withEventOptions(
    trail
      .command('revise <file>')
      .description("record one externally declared revision of an agent's footprint (authorizationRef recorded as declared-only)")
      .requiredOption('--agent <id>', 'the agent whose footprint is revised')
      .requiredOption('--authorization-ref <ref>', 'reference to the external declaration (not validated)')
      .option('--write <path>', 'a path of the revised write set (repeatable)', collect, [])
      .option('--read <path>', 'a path of the revised read set (repeatable)', collect, []),
  ).action(async (file: string, flags: EventFlags & { agent: string; authorizationRef: string; write: string[]; read: string[] }) => {
    const next = await updateTrailFile(resolve(io.cwd, file), (current) =>
      appendScopeRevision(
        current,
        { agentId: flags.agent, authorizationRef: flags.authorizationRef, footprint: { readPaths: flags.read, writePaths: flags.write } },
        eventOptions(flags),
      ),
    ).catch(refused);
    report(io, file, next, flags, `scope revision by ${flags.agent} recorded`);
  });
}

function addReobserveCommand(trail: Command, io: Io): void {
  withEventOptions(
    trail
      .command('reobserve <file>')
      .description('record a fresh observation of the same two agents and its advisory')
      .requiredOption('--a <observation>', 'a fresh observation of one agent (JSON file)')
      .requiredOption('--b <observation>', 'a fresh observation of the other agent (JSON file)')
      .option('--graph <graph>', 'a new dependency graph JSON (default: the previous one)'),
  ).action(async (file: string, flags: EventFlags & { a: string; b: string; graph?: string }) => {
    const [a, b, graph] = await Promise.all([
      readJson(io, flags.a, 'observation'),
      readJson(io, flags.b, 'observation'),
      readGraph(io, flags.graph),
    ]);
    const next = await updateTrailFile(resolve(io.cwd, file), (current) =>
      appendReobservation(current, a as never, b as never, { ...eventOptions(flags), ...(graph ? { graph } : {}) }),
    ).catch(refused);
    report(io, file, next, flags, 're-observation recorded');
  });
}

function addSummarizeCommand(trail: Command, io: Io): void {
  trail
    .command('summarize <file>')
    .description('the latest advisory, its acknowledgements, historical acknowledgers and outcome (verifies first)')
    .option('--json', 'print the summary as JSON')
    .action(async (file: string, flags: { json?: boolean }) => {
      const text = await readNamedFile(resolve(io.cwd, file)).catch((error: Error) => {
        throw new CliError(`Cannot read trail file ${file}: ${error.message}`);
      });
      const result = verifyShadowTrailText(text);
      if (!result.ok) throw new CliError(`${file} does not verify (${result.reason}): ${result.message}`);
      const summary = summarizeShadowTrail(JSON.parse(text) as ShadowTrail);
      io.stdout.write(flags.json ? `${JSON.stringify(summary, null, 2)}\n` : renderSummary(summary));
    });
}

function addVerifyCommand(trail: Command, io: Io): void {
  trail
    .command('verify <file>')
    .description('check the receipt chain: canonical order, chain links, SHA-256 hashes and event rules; exit 1 when it fails')
    .option('--head <hash>', 'the head hash you kept; detects receipts cut from the end')
    .option('--json', 'print the verification result as JSON')
    .action(async (file: string, flags: { head?: string; json?: boolean }) => {
      const text = await readNamedFile(resolve(io.cwd, file)).catch((error: Error) => {
        throw new CliError(`Cannot read trail file ${file}: ${error.message}`);
      });
      // A mis-copied head is the user's mistake, not the trail's: said before anything is verified.
      if (flags.head !== undefined && !/^[0-9a-f]{64}$/.test(flags.head))
        throw new CliError(
          `--head "${printable(flags.head.slice(0, 80))}" is not a receipt hash: a head is 64 lowercase hexadecimal digits, as trail verify prints it.`,
        );
      const result = verifyShadowTrailText(text, flags.head ? { expectedHeadHash: flags.head } : {});
      if (flags.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      if (result.ok) {
        if (!flags.json)
          io.stdout.write(`${file}: verified — ${result.receipts} receipt${result.receipts === 1 ? '' : 's'}, head ${result.headHash}.\n`);
        return;
      }
      io.stderr.write(`airspace: ${file} does not verify (${result.reason}): ${result.message}\n`);
      io.exitCode(ExitCode.ERROR);
    });
}

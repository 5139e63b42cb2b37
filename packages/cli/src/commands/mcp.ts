/**
 * `airspace mcp`: the Model Context Protocol server over stdio (`@airspace/mcp`, loaded on
 * demand), for agents in the worktree of the current directory. Its stdout carries protocol
 * messages only.
 */
import { Command } from 'commander';
import type { Io } from '../io.js';

export function mcpCommand(io: Io): Command {
  return new Command('mcp')
    .description(
      'serve the Model Context Protocol over stdio: check_edit, list_advisories, declare_intent, acknowledge, and the airspace resource',
    )
    .option('--agent <id>', "the agent this server speaks for (default: the agent of the current directory's worktree)")
    .option('--no-engine', "scan in-process instead of through the repository's resident engine (also AIRSPACE_ENGINE=off)")
    .action(async (flags: { agent?: string; engine?: boolean }) => {
      const { runMcpServer } = await import('@airspace/mcp');
      await runMcpServer({ cwd: io.cwd, ...(flags.agent ? { agent: flags.agent } : {}), engine: flags.engine !== false, env: io.env });
    });
}

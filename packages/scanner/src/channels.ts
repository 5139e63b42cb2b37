/**
 * The built-in channels, in one list. A new built-in is a line here, a dependency in package.json,
 * a project reference in tsconfig.json and its entry in docs/channels.md. Plugins named in a
 * config file are loaded by `@airspace/config`.
 */
import type { AnyChannel } from '@airspace/core';
import { callGraphChannel } from '@airspace/channel-callgraph';
import { coChangeChannel } from '@airspace/channel-cochange';
import { dependencyChannel } from '@airspace/channel-dependency';
import { mergeChannel } from '@airspace/channel-merge';
import { overlapChannel } from '@airspace/channel-overlap';
import { pastConflictsChannel } from '@airspace/channel-pastconflicts';
import { symbolsChannel } from '@airspace/channel-symbols';
import { treeChannel } from '@airspace/channel-tree';
import { typecheckChannel } from '@airspace/channel-typecheck';

export const BUILTIN_CHANNELS: readonly (() => AnyChannel)[] = [
  () => overlapChannel(),
  () => treeChannel(),
  () => dependencyChannel(),
  () => mergeChannel(),
  () => symbolsChannel(),
  () => callGraphChannel(),
  () => coChangeChannel(),
  () => pastConflictsChannel(),
  () => typecheckChannel(),
];

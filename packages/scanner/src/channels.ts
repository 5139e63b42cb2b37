/**
 * The built-in channels, in one list: adding a built-in is one line here (and a dependency in
 * package.json). Plugins named in a config file are loaded by `@airspace/config`.
 */
import type { AnyChannel } from '@airspace/core';
import { callGraphChannel } from '@airspace/channel-callgraph';
import { coChangeChannel } from '@airspace/channel-cochange';
import { dependencyChannel } from '@airspace/channel-dependency';
import { mergeChannel } from '@airspace/channel-merge';
import { overlapChannel } from '@airspace/channel-overlap';
import { symbolsChannel } from '@airspace/channel-symbols';
import { treeChannel } from '@airspace/channel-tree';

export const BUILTIN_CHANNELS: readonly (() => AnyChannel)[] = [
  () => overlapChannel(),
  () => treeChannel(),
  () => dependencyChannel(),
  () => mergeChannel(),
  () => symbolsChannel(),
  () => callGraphChannel(),
  () => coChangeChannel(),
];


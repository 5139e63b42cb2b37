/**
 * The resolved channel set of a scan: built-ins plus plugins, minus disabled ones, with each
 * channel's weight and where that weight came from (config > calibration > the channel's default).
 */
import { isAbsolute, resolve } from 'node:path';
import {
  DEFAULT_FORECAST_MODEL,
  DEFAULT_THRESHOLDS,
  duplicateChannelId,
  type AnyChannel,
  type ForecastModel,
  type ChannelBudget,
  type Precision,
  type ProbabilityMap,
  type Problem,
  type Thresholds,
} from '@airspace/core';
import type { AirspaceConfig, LoadedConfig } from './config.js';
import { readCalibration } from './calibration.js';
import { loadPlugins, type Isolation, type LoadedChannel, type LoadPluginsOptions } from './plugins.js';

/**
 * A plugin channel's time in one scan, unless the config says otherwise. 5 s keeps an editor's
 * rescans and a CI gate responsive while leaving room for a plugin that reads files; 2 s per call
 * is far above what scoring one pair should take, and cuts a call that will never answer.
 */
export const DEFAULT_BUDGET: ChannelBudget = { channelMs: 5000, callMs: 2000 };

export interface ChannelListing {
  readonly id: string;
  readonly source: string;
  readonly enabled: boolean;
  readonly weight: number;
  readonly weightFrom: 'default' | 'calibration' | 'config';
  readonly precision: Precision;
  readonly requires: readonly string[];
  readonly description?: string;
  /** Where its code runs: built-ins in-process, plugins in their module's worker thread. */
  readonly isolation: Isolation;
  /** Plugins only: its time budget per scan. */
  readonly budget?: ChannelBudget;
}

export interface ChannelSet {
  /** Enabled channels, built-ins first, in load order. */
  readonly channels: readonly AnyChannel[];
  readonly weights: Readonly<Record<string, number>>;
  readonly thresholds: Thresholds;
  /** The calibration file's risk → probability map; absent: the scan's shipped map. */
  readonly probability?: ProbabilityMap;
  /** The forecast model of the scans (the calibration's or the shipped one, with the config's threshold), or false when the config turns it off. */
  readonly forecast: ForecastModel | false;
  readonly channelOptions: Readonly<Record<string, unknown>>;
  readonly resolutionPrecisions?: readonly Precision[];
  /** Time budgets of the enabled channels that are not built-ins, by id. */
  readonly budgets: Readonly<Record<string, ChannelBudget>>;
  /** Every channel that was loaded, enabled or not (for `airspace channels`). */
  readonly listing: readonly ChannelListing[];
  readonly problems: readonly Problem[];
  /** Waits for plugin threads restarting after an exit or a timeout; call before each scan. */
  ready(): Promise<void>;
  /** Ends the plugins' worker threads; call when the channel set is no longer used. */
  dispose(): Promise<void>;
}

export interface ResolveChannelSetOptions {
  readonly builtins: readonly LoadedChannel[];
  readonly loaded: LoadedConfig;
  /** `--calibration FILE`, overriding the config's `calibration`. */
  readonly calibrationPath?: string;
  readonly plugins?: LoadPluginsOptions;
}

export async function resolveChannelSet(options: ResolveChannelSetOptions): Promise<ChannelSet> {
  const { config, dir } = options.loaded;
  const settings = config.channels ?? {};
  const problems: Problem[] = [...options.loaded.problems];

  const plugins = await loadPlugins(config.plugins ?? [], dir, options.plugins);
  problems.push(...plugins.problems);

  const calibrationPath =
    options.calibrationPath ??
    (config.calibration ? (isAbsolute(config.calibration) ? config.calibration : resolve(dir, config.calibration)) : undefined);
  const calibration = calibrationPath ? readCalibration(calibrationPath) : { problems: [] };
  problems.push(...calibration.problems);

  const seen = new Map<string, string>();
  const listing: ChannelListing[] = [];
  const channels: AnyChannel[] = [];
  const weights: Record<string, number> = {};
  const channelOptions: Record<string, unknown> = {};
  const budgets: Record<string, ChannelBudget> = {};
  for (const { channel, source, isolation } of [...options.builtins, ...plugins.channels]) {
    const first = seen.get(channel.id);
    if (first !== undefined) {
      problems.push(duplicateChannelId(channel.id, first, source));
      continue;
    }
    seen.set(channel.id, source);
    const s = settings[channel.id];
    const calibrated = calibration.calibration?.weights[channel.id];
    const weightFrom = s?.weight !== undefined ? 'config' : calibrated !== undefined ? 'calibration' : 'default';
    const weight = s?.weight ?? calibrated ?? channel.defaultWeight;
    const enabled = s?.enabled ?? true;
    const budget = source === 'builtin' ? undefined : { ...DEFAULT_BUDGET, ...config.budget, ...s?.budget };
    listing.push({
      id: channel.id,
      source,
      enabled,
      weight,
      weightFrom,
      precision: channel.meta?.precision ?? 'file',
      requires: channel.requires ?? [],
      ...(channel.meta?.description ? { description: channel.meta.description } : {}),
      isolation: isolation ?? 'in-process',
      ...(budget ? { budget } : {}),
    });
    if (!enabled) continue;
    channels.push(channel);
    weights[channel.id] = weight;
    if (budget) budgets[channel.id] = budget;
    if (s?.options !== undefined) channelOptions[channel.id] = s.options;
  }
  for (const id of Object.keys(settings)) {
    if (!seen.has(id))
      problems.push({ code: 'UNKNOWN_CHANNEL', channel: id, message: `Config sets channel "${id}", but no loaded channel has that id.` });
  }

  let thresholds: Thresholds = {
    traffic: config.thresholds?.traffic ?? calibration.calibration?.thresholds?.traffic ?? DEFAULT_THRESHOLDS.traffic,
    resolution: config.thresholds?.resolution ?? calibration.calibration?.thresholds?.resolution ?? DEFAULT_THRESHOLDS.resolution,
  };
  if (thresholds.traffic > thresholds.resolution) {
    problems.push({
      code: 'INVALID_CONFIG',
      message: `Thresholds: traffic (${thresholds.traffic}) is above resolution (${thresholds.resolution}); using the defaults.`,
    });
    thresholds = DEFAULT_THRESHOLDS;
  }

  return {
    channels,
    weights,
    thresholds,
    ...(calibration.calibration?.probability ? { probability: calibration.calibration.probability } : {}),
    forecast: forecastOf(config.forecast, calibration.calibration?.forecast),
    channelOptions,
    ...(config.escalation?.resolutionPrecisions ? { resolutionPrecisions: config.escalation.resolutionPrecisions } : {}),
    budgets,
    listing,
    problems,
    ready: () => plugins.ready(),
    dispose: () => plugins.dispose(),
  };
}

/** The config's forecast settings over the calibration file's model, or the shipped one (the config wins). */
export function forecastOf(settings: AirspaceConfig['forecast'], calibrated?: ForecastModel): ForecastModel | false {
  if (settings?.enabled === false) return false;
  const model = calibrated ?? DEFAULT_FORECAST_MODEL;
  return settings?.threshold === undefined ? model : { ...model, threshold: settings.threshold };
}

// Feeds the gateway the static supergraph.graphql and reloads it when the file changes, without
// a restart. The directory is watched (editors and `npm run compose` replace the file by rename,
// which a watch on the file itself would lose), changes are debounced, and a file that does not
// parse as a supergraph is logged and ignored: the router keeps serving the last good schema.
import fs from 'node:fs';
import path from 'node:path';
import type { SupergraphManager } from '@apollo/gateway';
import type { Logger } from '../../platform/logging/logger';
import { SupergraphModel } from './supergraph.model';

export interface SupergraphFileOptions {
  file: string;
  debounceMs: number;
  logger: Logger;
  /** Called with every supergraph the gateway accepts, first load included. */
  onModel(model: SupergraphModel): void;
}

/** What one reload attempt did: swapped the schema, saw no change, or kept the old schema. */
export type ReloadOutcome = 'reloaded' | 'unchanged' | 'invalid' | 'unreadable';
export interface ReloadAttempt {
  /** The watched file, as configured (an absolute path). */
  file: string;
  outcome: ReloadOutcome;
}

const reloadObservers = new Set<(attempt: ReloadAttempt) => void>();

/**
 * Calls `observer` after each reload attempt of any watched supergraph file (tests use it to know
 * the watcher has looked at a change, e.g. before asserting that a bad file swapped nothing).
 * Returns the function that stops observing.
 */
export function observeSupergraphReloads(observer: (attempt: ReloadAttempt) => void): () => void {
  reloadObservers.add(observer);
  return () => {
    reloadObservers.delete(observer);
  };
}

function reported(file: string, outcome: ReloadOutcome): void {
  for (const observer of reloadObservers) {
    try {
      observer({ file, outcome });
    } catch {
      // An observer's failure is its own; the watcher keeps going.
    }
  }
}

export function readSupergraphFile(file: string): SupergraphModel {
  return SupergraphModel.parse(fs.readFileSync(file, 'utf8'));
}

export function supergraphFromFile(options: SupergraphFileOptions): SupergraphManager {
  return {
    async initialize({ update }) {
      const first = readSupergraphFile(options.file);
      options.onModel(first);
      let current = first.sdl;
      let timer: NodeJS.Timeout | undefined;

      const attemptReload = (): ReloadOutcome => {
        let sdl: string;
        try {
          sdl = fs.readFileSync(options.file, 'utf8');
        } catch (err) {
          options.logger.error({ err, file: options.file }, 'supergraph file unreadable; keeping the current schema');
          return 'unreadable';
        }
        if (sdl === current) return 'unchanged';
        try {
          const model = SupergraphModel.parse(sdl);
          update(model.gatewaySdl);
          current = sdl;
          options.onModel(model);
          options.logger.info({ file: options.file }, 'supergraph reloaded');
          return 'reloaded';
        } catch (err) {
          options.logger.error(
            { err: (err as Error).message, file: options.file },
            'invalid supergraph; keeping the current schema',
          );
          return 'invalid';
        }
      };
      const reload = () => reported(options.file, attemptReload());

      const watcher = fs.watch(path.dirname(options.file), (_event, filename) => {
        if (filename && filename.toString() !== path.basename(options.file)) return;
        clearTimeout(timer);
        timer = setTimeout(reload, options.debounceMs);
      });
      watcher.on('error', (err) => options.logger.error({ err }, 'supergraph watcher failed'));

      return {
        supergraphSdl: first.gatewaySdl,
        cleanup: async () => {
          clearTimeout(timer);
          watcher.close();
        },
      };
    },
  };
}

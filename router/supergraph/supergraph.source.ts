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

      const reload = () => {
        let sdl: string;
        try {
          sdl = fs.readFileSync(options.file, 'utf8');
        } catch (err) {
          options.logger.error({ err, file: options.file }, 'supergraph file unreadable; keeping the current schema');
          return;
        }
        if (sdl === current) return;
        try {
          const model = SupergraphModel.parse(sdl);
          update(model.gatewaySdl);
          current = sdl;
          options.onModel(model);
          options.logger.info({ file: options.file }, 'supergraph reloaded');
        } catch (err) {
          options.logger.error({ err: (err as Error).message, file: options.file }, 'invalid supergraph; keeping the current schema');
        }
      };

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

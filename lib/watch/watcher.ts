// Watch mode's eyes: fs.watch on the directories of the source files (an editor that saves by writing a new
// file and renaming it over the old one replaces the inode a watch on the file itself would follow, so the
// directory is watched and events filtered by name), and recursively on the mock folders. A burst of events
// (editors write twice; `git checkout` writes many) is one change once DEBOUNCE_MS passed without another.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

export interface WatchedSources {
  /** Files (whether they exist yet or not) whose change means a reload. */
  files: readonly string[];
  /** Folders in which any change means a reload (the mock folders). */
  folders: readonly string[];
}

export const DEBOUNCE_MS = 40;

export class SourceWatcher {
  /** Directory (or folder, recursive) → its watcher and the names in it that count (undefined: all). */
  private readonly watchers = new Map<string, { watcher: FSWatcher; names: Set<string> | undefined }>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** After a failed reload: any file in a watched directory counts (the one a broken `$ref` waits for, say). */
  private widened = false;

  constructor(
    sources: WatchedSources,
    private readonly onChange: () => void,
  ) {
    this.update(sources);
  }

  /** Watches exactly these sources from now on (a reload can add or drop `$ref`'d files). */
  update(sources: WatchedSources): void {
    if (this.closed) return;
    this.widened = false;
    const wanted = new Map<string, Set<string> | undefined>();
    for (const folder of sources.folders) wanted.set(`folder:${resolve(folder)}`, undefined);
    for (const file of sources.files) {
      const key = `dir:${dirname(resolve(file))}`;
      const names = wanted.get(key) ?? new Set<string>();
      names.add(basename(file));
      wanted.set(key, names);
    }
    for (const [key, entry] of this.watchers) {
      if (!wanted.has(key)) {
        entry.watcher.close();
        this.watchers.delete(key);
      }
    }
    for (const [key, names] of wanted) {
      const existing = this.watchers.get(key);
      if (existing) {
        existing.names = names;
        continue;
      }
      const watcher = this.open(key);
      if (watcher) this.watchers.set(key, { watcher, names });
    }
  }

  /**
   * The last reload failed: what it would have read is unknown (a file a new `$ref` names, not there yet), so
   * until the next good one any change in the watched directories reloads.
   */
  widen(): void {
    this.widened = true;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const { watcher } of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private open(key: string): FSWatcher | undefined {
    const recursive = key.startsWith('folder:');
    const path = key.slice(key.indexOf(':') + 1);
    try {
      // Not persistent: the server keeps the process alive, the watchers alone must not.
      const watcher = watch(path, { recursive, persistent: false }, (_event, name) => {
        const entry = this.watchers.get(key);
        if (this.widened || entry?.names === undefined || name === null || entry.names.has(String(name))) this.changed();
      });
      // A watched directory removed (a mock folder deleted): nothing more to hear from it.
      watcher.on('error', () => undefined);
      return watcher;
    } catch {
      return undefined; // a directory that does not exist: no file in it to change
    }
  }

  private changed(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onChange, DEBOUNCE_MS);
    this.timer.unref();
  }
}

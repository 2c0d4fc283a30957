/**
 * The operating system's file cache around the measured database. This machine's host pages out
 * file-cache pages that went unread for a minute (DAMON `pageout`, /sys/kernel/mm/damon: a page
 * idle for 12 aggregation intervals of 5 s), so a database read a few minutes ago is partly back on
 * disk: a query's p95 then measures the virtual disk. The warm figures are taken on a warm cache
 * (`warmFileCache` before each group); the cold ones on an empty one (`dropFileCache`).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";

/** The database file and its WAL companions. */
export function databaseFiles(db: string): string[] {
  return [db, `${db}-wal`, `${db}-shm`];
}

/** Empty the operating system's file cache: all of it when we may (root), else the database's own pages. */
export function dropFileCache(files: string[]): "drop_caches" | "fadvise" {
  execFileSync("sync");
  try {
    fs.writeFileSync("/proc/sys/vm/drop_caches", "1");
    return "drop_caches";
  } catch {
    // Not permitted: ask the kernel to drop these files' pages (posix_fadvise DONTNEED through dd).
    for (const file of files) if (fs.existsSync(file)) execFileSync("dd", [`if=${file}`, "iflag=nocache", "count=0", "status=none"]);
    return "fadvise";
  }
}

/** Read every page of the files once, so the next minute's queries find them in the file cache; milliseconds taken. */
export function warmFileCache(files: string[]): number {
  const started = performance.now();
  const buffer = Buffer.alloc(1 << 20);
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const fd = fs.openSync(file, "r");
    try {
      while (fs.readSync(fd, buffer, 0, buffer.length, null) > 0);
    } finally {
      fs.closeSync(fd);
    }
  }
  return performance.now() - started;
}

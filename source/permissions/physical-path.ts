import { isAbsolute } from 'node:path'

/** Paths spelled as the kernel walks them, for permission checks. Pure. */

/** An absolute path with `.` and repeated slashes dropped but every `..` kept (see `physicalJoin`). */
export function physicalPath(abs: string): string {
  return physicalJoin('/', abs)
}

/**
 * `rel` from `dir` as the kernel will walk it: `.` and empty segments dropped, `..` kept, because a
 * `..` after a symlink leaves from the link's target. `path.resolve` folds it away lexically, which is
 * right for bash's logical `cd` but not for a file argument.
 */
export function physicalJoin(dir: string, rel: string): string {
  const joined = isAbsolute(rel) ? rel : `${dir}/${rel}`
  const parts = joined.split('/').filter((p) => p !== '' && p !== '.')
  return `/${parts.join('/')}`
}

export function startArgs(
  args: readonly string[],
  initCwd: string | undefined,
  root: string,
): { args: string[]; hint: string | null }

/** Kept apart from names.ts (which hashes with node:crypto) so the UI can use it at no start-up cost. */

/** `mcp__github__create_issue` → `github › create_issue` for cards and prompts; other names unchanged. */
export function displayToolName(name: string): string {
  const m = /^mcp__(.+?)__(.+)$/.exec(name)
  return m ? `${m[1]} › ${m[2]}` : name
}

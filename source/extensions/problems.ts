import type { ExtensionProblem } from './types.js'

/** `file: field: message`, for a notice or stderr. */
export function describeProblem(problem: ExtensionProblem): string {
  return `${problem.file}: ${problem.field ? `${problem.field}: ` : ''}${problem.message}`
}

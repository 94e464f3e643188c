import type { ErrorCategory } from '../store/domain.js'
import { errorText } from './info.js'

/** A failed call, with the error category the model gets. */
export class McpCallError extends Error {
  constructor(
    readonly category: ErrorCategory,
    message: string,
    readonly hint?: string,
  ) {
    super(message)
  }
}

/** What a failed request to server `server` is for the model: a timeout, a server that stopped, its error. */
export function callError(
  error: unknown,
  at: { signal: AbortSignal; server: string; timeoutText: string; describe(): string },
): McpCallError {
  if (at.signal.aborted) return new McpCallError('aborted', 'cancelled by user')
  const code = (error as { code?: unknown }).code
  if (code === 'REQUEST_TIMEOUT')
    return new McpCallError('timeout', `MCP server "${at.server}": ${at.timeoutText}`)
  if (code === 'CONNECTION_CLOSED' || code === 'NOT_CONNECTED' || code === 'SEND_FAILED') {
    return new McpCallError(
      'execution',
      `MCP server "${at.server}" stopped: ${at.describe()}`,
      'the user can restart it with /mcp',
    )
  }
  if (typeof code === 'number')
    return new McpCallError('execution', `MCP server "${at.server}": ${errorText(error)}`)
  return new McpCallError('network', `MCP server "${at.server}": ${errorText(error)}`)
}

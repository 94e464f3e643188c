import type { ModelList } from '../agent/runtime/commands.js'
import { describeHeadersAt, type EndpointHeader, headersFor } from '../config/headers.js'

/**
 * The endpoint's models for `/model`: its `/models` listing, loaded lazily (the first use loads undici).
 * Never rejects; a failed listing says why.
 */
export async function listEndpointModels(
  endpoint: { baseUrl: string; apiKey?: string; headers?: Record<string, string> },
  current: string,
): Promise<ModelList> {
  const { resolveEndpoint } = await import('../config/endpoint.js')
  const listed = await resolveEndpoint({
    baseUrl: endpoint.baseUrl,
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    ...(endpoint.headers ? { headers: endpoint.headers } : {}),
    model: current,
  })
  if (listed.kind === 'none') return { models: [], error: 'no endpoint is configured' }
  return listed.listError ? { models: listed.models, error: listed.listError } : { models: listed.models }
}

/** `/model`'s listing and `/context`'s endpoint headers (redacted), with the headers the endpoint gets. */
export function endpointCommands(
  endpoint: { baseUrl: string; apiKey?: string },
  headers: readonly EndpointHeader[],
  model: () => string,
): { listModels(): Promise<ModelList>; endpointHeaders(): string[] } {
  const sent = headersFor(headers, endpoint.baseUrl)
  const withHeaders = { ...endpoint, ...(sent ? { headers: sent } : {}) }
  return {
    listModels: () => listEndpointModels(withHeaders, model()),
    endpointHeaders: () => describeHeadersAt(headers, endpoint.baseUrl),
  }
}

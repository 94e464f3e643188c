import type { ModelList } from '../agent/runtime/commands.js'

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

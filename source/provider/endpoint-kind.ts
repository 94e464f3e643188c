import { bareHost, classifyAddress, isLocalHostName } from '../util/address-class.js'

/**
 * Hosted chat APIs: they parse the model's tool calls themselves, so markup left in the text is the
 * model quoting it, never a call to run. Matched by host name (a suffix: `*.openai.azure.com`).
 */
const HOSTED_APIS = [
  'api.openai.com',
  'openai.azure.com',
  'openrouter.ai',
  'api.anthropic.com',
  'generativelanguage.googleapis.com',
  'aiplatform.googleapis.com',
  'api.deepseek.com',
  'api.mistral.ai',
  'api.groq.com',
  'api.together.xyz',
  'api.together.ai',
  'api.fireworks.ai',
  'api.x.ai',
  'api.cerebras.ai',
  'api.deepinfra.com',
  'integrate.api.nvidia.com',
  'api.perplexity.ai',
  'api.moonshot.ai',
  'api.moonshot.cn',
  'api.z.ai',
  'open.bigmodel.cn',
  'dashscope.aliyuncs.com',
  'dashscope-intl.aliyuncs.com',
  'api.minimax.io',
  'api.minimaxi.com',
  'router.huggingface.co',
  'api-inference.huggingface.co',
  'amazonaws.com',
]

function hostOf(baseUrl: string): string | null {
  try {
    return bareHost(new URL(baseUrl).hostname.toLowerCase()).replace(/\.$/, '')
  } catch {
    return null
  }
}

export function hostedApi(baseUrl: string): boolean {
  const host = hostOf(baseUrl)
  return host !== null && HOSTED_APIS.some((h) => host === h || host.endsWith(`.${h}`))
}

/** This machine or its network (loopback, private and link-local addresses, `.local` names): a local server. */
export function localEndpoint(baseUrl: string): boolean {
  const host = hostOf(baseUrl)
  if (host === null) return false
  if (isLocalHostName(host) || host.endsWith('.local') || host.endsWith('.lan') || host.endsWith('.internal'))
    return true
  const cls = classifyAddress(host)
  return cls === 'loopback' || cls === 'private' || cls === 'link-local' || cls === 'unspecified'
}

import { homedir } from 'node:os'
import type { Usage } from '../../../store/messages.js'

/** USD per million tokens; cached input falls back to the input price when unknown. */
export interface Prices {
  inputPerMillion: number
  outputPerMillion: number
  cachedInputPerMillion?: number
}

/** Cost of a usage total; cached tokens are part of `input` (OpenAI counts them in prompt_tokens). */
export function estimateCost(usage: Usage, prices: Prices): number {
  const cached = Math.min(usage.cached, usage.input)
  const cachedPrice = prices.cachedInputPerMillion ?? prices.inputPerMillion
  return (
    ((usage.input - cached) * prices.inputPerMillion +
      cached * cachedPrice +
      usage.output * prices.outputPerMillion) /
    1_000_000
  )
}

/** Two or three significant digits, so a cheap session still moves: 0.0045 → "$0.0045", 0.0123 → "$0.012". */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0'
  if (usd < 0.01) return `$${usd.toFixed(4)}`
  if (usd < 1) return `$${usd.toFixed(3)}`
  if (usd < 10) return `$${usd.toFixed(2)}`
  return `$${usd.toFixed(1)}`
}

/** 950 → "950", 12_345 → "12.3k", 2_400_000 → "2.4M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`
}

/** Percent of the context window in use, 0–100 (clamped), rounded down so 100% means full. */
export function contextPercent(contextTokens: number, contextLimit: number): number {
  if (contextLimit <= 0) return 0
  return Math.max(0, Math.min(100, Math.floor((contextTokens / contextLimit) * 100)))
}

/** Share of the last request's prompt served from the provider cache. */
export function cachedPercent(lastStep: Usage): number {
  return lastStep.input > 0
    ? Math.round((Math.min(lastStep.cached, lastStep.input) / lastStep.input) * 100)
    : 0
}

/** "/home/me/src/app" → "~/src/app"; long paths keep their last segments. */
export function shortenPath(path: string, max: number, home = homedir()): string {
  let p = path
  if (home && (p === home || p.startsWith(`${home}/`))) p = `~${p.slice(home.length)}`
  if (p.length <= max) return p
  const parts = p.split('/')
  let out = parts.at(-1) ?? p
  for (let i = parts.length - 2; i >= 0; i--) {
    const next = `${parts[i]}/${out}`
    if (next.length + 2 > max) break
    out = next
  }
  out = `…/${out}`
  return out.length <= max ? out : `…${out.slice(out.length - max + 1)}`
}

/** 5 → "5s", 75 → "1m 15s", 3700 → "1h 1m". */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m ${s % 60}s`
  return `${Math.floor(m / 60)}h ${m % 60}m`
}

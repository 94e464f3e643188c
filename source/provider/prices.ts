/**
 * APPROXIMATE list prices, USD per million tokens, of well-known models served through
 * OpenAI-compatible APIs (the vendors' published pay-as-you-go prices, late 2025). They drive the
 * status bar's "~$" estimate only: no batch, flex or priority tiers, regional or reseller prices,
 * discounts, and vendors change prices. Models not listed here (local servers, fine-tunes, other
 * vendors) get no estimate; the status bar then shows tokens only.
 */

/** Same shape as the status bar's `Prices`; cached input falls back to the input price when absent. */
export interface ModelPrices {
  inputPerMillion: number
  cachedInputPerMillion?: number
  outputPerMillion: number
}

interface PriceEntry {
  /** Matched against the model id without a vendor path (`openai/gpt-4o` → `gpt-4o`), lower-cased. */
  pattern: RegExp
  prices: ModelPrices
}

// Pinned snapshots carry a date (`gpt-4o-2024-08-06`, `deepseek-chat-0324`); nothing else may follow
// the name, so `gpt-4o-mini` or `gpt-4o-audio-preview` never fall back to the `gpt-4o` row.
const DATED = String.raw`(?:-\d{4}-\d{2}-\d{2}|-\d{4})?`
const exact = (name: string) => new RegExp(`^${name.replace(/[.]/g, '\\.')}${DATED}$`)

const price = (input: number, cached: number, output: number): ModelPrices => ({
  inputPerMillion: input,
  cachedInputPerMillion: cached,
  outputPerMillion: output,
})

export const PRICE_TABLE: readonly PriceEntry[] = [
  { pattern: exact('gpt-4o'), prices: price(2.5, 1.25, 10) },
  { pattern: exact('gpt-4o-mini'), prices: price(0.15, 0.075, 0.6) },
  { pattern: exact('gpt-4.1'), prices: price(2, 0.5, 8) },
  { pattern: exact('gpt-4.1-mini'), prices: price(0.4, 0.1, 1.6) },
  { pattern: exact('gpt-4.1-nano'), prices: price(0.1, 0.025, 0.4) },
  { pattern: exact('gpt-5'), prices: price(1.25, 0.125, 10) },
  { pattern: exact('gpt-5-mini'), prices: price(0.25, 0.025, 2) },
  { pattern: exact('gpt-5-nano'), prices: price(0.05, 0.005, 0.4) },
  { pattern: exact('o3'), prices: price(2, 0.5, 8) },
  { pattern: exact('o4-mini'), prices: price(1.1, 0.275, 4.4) },
  // DeepSeek's API (V3.2): chat and reasoner share one price; `deepseek-v3*` names the same model at
  // resellers, whose prices are close.
  { pattern: /^deepseek-(?:chat|v3)(?:[-.][\w.-]*)?$/, prices: price(0.28, 0.028, 0.42) },
  { pattern: exact('deepseek-reasoner'), prices: price(0.28, 0.028, 0.42) },
]

/** The list prices for a model id, or undefined when unknown (local models, other vendors). */
export function pricesForModel(model: string): ModelPrices | undefined {
  const id = model.trim().toLowerCase()
  // Ollama-style tags (`deepseek-v3:671b`) name local weights, which cost nothing per token.
  if (!id || id.includes(':')) return undefined
  const name = id.slice(id.lastIndexOf('/') + 1)
  return PRICE_TABLE.find((entry) => entry.pattern.test(name))?.prices
}

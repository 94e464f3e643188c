/**
 * The local model families people run with Ollama, llama.cpp, LM Studio and vLLM (docs/configuration.md#local-model-families):
 * the window their model card gives, and the tool-call format their chat template writes, which a server
 * without a parser for it hands back as text (recovered when `textToolCalls` is on, its default here).
 * A window the endpoint reports, or the settings, beat these; a server often runs a model with less.
 * Ordered like the main table: more specific patterns first. Typed where model-profiles.ts spreads them
 * into its table (this file imports nothing, so the two stay out of a circle).
 */
export const LOCAL_FAMILIES = [
  {
    // Qwen3-Coder model cards: "Context Length: 262,144 natively"; XML parameters inside <tool_call>.
    family: 'qwen3-coder',
    patterns: ['qwen3-coder*', 'qwen3coder*'],
    profile: {
      contextLimit: 262_144,
      compactAt: 0.75,
      observationWindow: 8,
      charToTokenRatio: 3.5,
      architecture: 'moe',
      textToolCalls: true,
      toolCallFormat: 'hermes',
    },
  },
  {
    // Qwen3 model cards: "32,768 natively and 131,072 tokens with YaRN"; Hermes-style <tool_call>.
    family: 'qwen3',
    patterns: ['qwen3*', 'qwen-3*'],
    profile: {
      contextLimit: 32_768,
      compactAt: 0.7,
      observationWindow: 4,
      charToTokenRatio: 3.5,
      textToolCalls: true,
      toolCallFormat: 'hermes',
    },
  },
  {
    // Llama 3.1, 3.2 and 3.3 model cards: a 128k (131,072-token) context; <|python_tag|> or bare JSON calls.
    family: 'llama3.x',
    patterns: [
      'llama3.1*',
      'llama3.2*',
      'llama3.3*',
      'llama-3.1*',
      'llama-3.2*',
      'llama-3.3*',
      'meta-llama-3.1*',
      '*llama-3.1-*',
      '*llama-3.2-*',
      '*llama-3.3-*',
    ],
    profile: {
      contextLimit: 131_072,
      compactAt: 0.7,
      observationWindow: 8,
      textToolCalls: true,
      toolCallFormat: 'llama',
    },
  },
  {
    // Meta-Llama-3 (3.0) model card: an 8k context; no tool-call format of its own.
    family: 'llama3',
    patterns: ['llama3', 'llama3:*', 'llama-3-*', 'meta-llama-3-*', 'llama3-*'],
    profile: {
      contextLimit: 8192,
      compactAt: 0.65,
      observationWindow: 2,
      textToolCalls: true,
      toolCallFormat: 'llama',
    },
  },
  {
    // Devstral Small 2 and Devstral 2 (2512): a 256k context; Mistral's v11+ [TOOL_CALLS]name[ARGS]{…}.
    family: 'devstral-2',
    patterns: [
      'devstral-small-2',
      'devstral-small-2-*',
      'devstral-small-2:*',
      'devstral-2',
      'devstral-2-*',
      'devstral-2:*',
    ],
    profile: {
      contextLimit: 262_144,
      compactAt: 0.75,
      observationWindow: 8,
      textToolCalls: true,
      toolCallFormat: 'mistral',
    },
  },
  {
    // Devstral Small 1.0/1.1 (fine-tuned from Mistral-Small-3.1): "a long context window of up to 128k tokens".
    family: 'devstral',
    patterns: ['devstral*'],
    profile: {
      contextLimit: 131_072,
      compactAt: 0.75,
      observationWindow: 8,
      textToolCalls: true,
      toolCallFormat: 'mistral',
    },
  },
  {
    // Mistral Small 3.x, Mistral Nemo, Ministral: 128k contexts in their model cards.
    family: 'mistral-128k',
    patterns: ['mistral-small*', 'mistral-nemo*', 'ministral*', 'magistral*', 'mistral-small3*'],
    profile: {
      contextLimit: 131_072,
      compactAt: 0.75,
      observationWindow: 8,
      textToolCalls: true,
      toolCallFormat: 'mistral',
    },
  },
  {
    // Mistral 7B Instruct v0.2/v0.3, Codestral 22B: a 32k context; [TOOL_CALLS][{…}] (tokenizer v3).
    family: 'mistral',
    patterns: ['mistral*', 'codestral*', 'mixtral*'],
    profile: {
      contextLimit: 32_768,
      compactAt: 0.7,
      observationWindow: 4,
      textToolCalls: true,
      toolCallFormat: 'mistral',
    },
  },
  {
    // DeepSeek-Coder-V2 (Lite) model card: "extends the context length from 16K to 128K".
    family: 'deepseek-coder-v2',
    patterns: ['deepseek-coder-v2*'],
    profile: {
      contextLimit: 131_072,
      compactAt: 0.75,
      observationWindow: 8,
      architecture: 'moe',
      textToolCalls: true,
      toolCallFormat: 'deepseek',
    },
  },
  {
    // DeepSeek Coder (1.3B–33B) model card: "a window size of 16K"; its template has no tool calls.
    family: 'deepseek-coder',
    patterns: ['deepseek-coder*'],
    profile: {
      contextLimit: 16_384,
      compactAt: 0.65,
      observationWindow: 2,
      charToTokenRatio: 3.5,
      textToolCalls: true,
      toolCallFormat: 'deepseek',
    },
  },
  {
    // Gemma 3 1B model card: a 32K context (the larger sizes have 128K).
    family: 'gemma-3-1b',
    patterns: ['gemma-3-1b*', 'gemma3:1b*', 'gemma3-1b*'],
    profile: {
      contextLimit: 32_768,
      compactAt: 0.65,
      observationWindow: 2,
      charToTokenRatio: 3.5,
      supportsTools: false,
      textToolCalls: true,
      toolCallFormat: 'none',
    },
  },
  {
    // Gemma 2 model card / config.json: an 8,192-token context.
    family: 'gemma-2',
    patterns: ['gemma-2*', 'gemma2*'],
    profile: {
      contextLimit: 8192,
      compactAt: 0.65,
      observationWindow: 2,
      charToTokenRatio: 3.5,
      supportsTools: false,
      textToolCalls: true,
      toolCallFormat: 'none',
    },
  },
] as const

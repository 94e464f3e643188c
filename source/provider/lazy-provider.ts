import type { ChatProvider } from './types.js'

/** A ChatProvider whose implementation is loaded on first use, or earlier by `preload()`. */
export interface LazyProvider extends ChatProvider {
  /**
   * Starts loading now (e.g. once the first frame is on screen). Resolves once loaded or failed, never
   * rejects: a failure surfaces on first use.
   */
  preload(): Promise<void>
}

/**
 * Defers loading the provider (the `openai` SDK is a large module, and evaluating it touches `fetch`,
 * which loads undici) until a request needs it, so none of that stands between start and the first frame.
 */
export function createLazyProvider(load: () => Promise<ChatProvider>): LazyProvider {
  let loading: Promise<ChatProvider> | null = null
  const provider = () => {
    loading ??= load()
    return loading
  }
  return {
    async stream(request, handlers) {
      return (await provider()).stream(request, handlers)
    },
    async listModels(signal) {
      return (await provider()).listModels(signal)
    },
    preload() {
      return provider().then(
        () => undefined,
        () => undefined,
      )
    },
  }
}

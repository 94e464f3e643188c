import { useInput } from 'ink'
import { useCallback, useEffect, useRef } from 'react'
import { useKeyState } from '../keys/use-key-state.js'
import {
  type KeyChoice,
  openSetup,
  type ProbedServer,
  reduceSetup,
  type SetupEffect,
  type SetupEvent,
  type SetupKey,
  splitTyped,
  type SetupResult,
  type SetupStart,
  type SetupState,
} from './setup-model.js'

/** What the form's effects are carried out with (app/setup-services.ts; a scripted stand-in in tests). */
export interface SetupServices {
  probe(): Promise<ProbedServer[]>
  listModels(
    baseUrl: string,
    key: KeyChoice,
    signal: AbortSignal,
  ): Promise<
    { ok: true; models: string[] } | { ok: false; error: string; status?: number; unreachable: boolean }
  >
  test(
    baseUrl: string,
    key: KeyChoice,
    model: string,
    signal: AbortSignal,
  ): Promise<{ ok: true; summary: string } | { ok: false; error: string }>
  save(choice: SetupResult): Promise<{ ok: true } | { ok: false; error: string }>
  envHas(name: string): boolean
}

export interface SetupFormCallbacks {
  /** `note`: what the test request found (`qwen3 answered in 80 ms: "OK"`). */
  onDone(choice: SetupResult, saved: boolean, note?: string): void
  onExit(): void
}

/**
 * Binds the setup model to React and Ink: keys in, effects carried out through `services`, results fed
 * back as events. The form is shown on its own (no app dispatcher), so it reads keys with `useInput`.
 */
export function useSetupForm(
  start: SetupStart,
  services: SetupServices,
  callbacks: SetupFormCallbacks,
): SetupState {
  const opened = useRef<ReturnType<typeof openSetup> | null>(null)
  opened.current ??= openSetup(start)
  const [state, setState, stateRef] = useKeyState<SetupState>(opened.current.state)
  const inFlight = useRef<AbortController | null>(null)
  const closed = useRef(false)

  // biome-ignore lint/correctness/useExhaustiveDependencies: run (below) reads refs and props only.
  const apply = useCallback(
    (event: SetupEvent) => {
      if (closed.current) return
      const next = reduceSetup(stateRef.current, event, { envHas: services.envHas })
      setState(next.state)
      for (const effect of next.effects) run(effect)
    },
    [services, setState, stateRef],
  )

  const request = (work: (signal: AbortSignal) => Promise<SetupEvent>) => {
    inFlight.current?.abort()
    const controller = new AbortController()
    inFlight.current = controller
    work(controller.signal).then(
      (event) => {
        if (!controller.signal.aborted) apply(event)
      },
      (error: unknown) => {
        if (controller.signal.aborted) return
        const message = error instanceof Error ? error.message : String(error)
        apply(failureEvent(stateRef.current, message))
      },
    )
  }

  function run(effect: SetupEffect): void {
    switch (effect.type) {
      case 'probe':
        request(async () => ({ type: 'probed', servers: await services.probe() }))
        return
      case 'list-models':
        request(async (signal) => ({
          type: 'listed',
          ...(await services.listModels(effect.baseUrl, effect.key, signal)),
        }))
        return
      case 'test':
        request(async (signal) => ({
          type: 'tested',
          ...(await services.test(effect.baseUrl, effect.key, effect.model, signal)),
        }))
        return
      case 'save':
        request(async () => ({ type: 'saved', ...(await services.save(effect.choice)) }))
        return
      case 'cancel':
        inFlight.current?.abort()
        inFlight.current = null
        return
      case 'done':
        closed.current = true
        callbacks.onDone(effect.choice, effect.saved, effect.note)
        return
      case 'exit':
        closed.current = true
        inFlight.current?.abort()
        callbacks.onExit()
        return
    }
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: the opening effects run once.
  useEffect(() => {
    for (const effect of opened.current?.effects ?? []) run(effect)
    return () => inFlight.current?.abort()
  }, [])

  useInput((input, key) => {
    const base: SetupKey = {
      input,
      return: key.return,
      escape: key.escape,
      upArrow: key.upArrow,
      downArrow: key.downArrow,
      backspace: key.backspace,
      delete: key.delete,
      tab: key.tab,
      ctrl: key.ctrl,
      meta: key.meta,
    }
    for (const part of splitTyped(base)) apply({ type: 'key', key: part })
  })
  return state
}

/** A service that threw: said at the step that waited for it. */
function failureEvent(state: SetupState, message: string): SetupEvent {
  if (state.busy?.startsWith('Looking')) return { type: 'probed', servers: state.servers }
  if (state.step === 'key') return { type: 'listed', ok: false, error: message, unreachable: true }
  if (state.busy === 'Saving…') return { type: 'saved', ok: false, error: message }
  return { type: 'tested', ok: false, error: message }
}

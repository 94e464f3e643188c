import { useCallback, useRef, useState } from 'react'

export type SetKeyState<T> = (next: T | ((prev: T) => T)) => void

/**
 * useState for values that key handlers read. Several keys can arrive before React renders again
 * (a fast typist, a chunk of input, a test writing keys back to back); a handler reading the rendered
 * value would then act on stale state. Here `ref.current` is updated at once, and the setter still
 * triggers the render.
 */
export function useKeyState<T>(initial: T | (() => T)): [T, SetKeyState<T>, { readonly current: T }] {
  const [value, setValue] = useState(initial)
  const ref = useRef(value)
  const set = useCallback<SetKeyState<T>>((next) => {
    const resolved = typeof next === 'function' ? (next as (prev: T) => T)(ref.current) : next
    ref.current = resolved
    setValue(resolved)
  }, [])
  return [value, set, ref]
}

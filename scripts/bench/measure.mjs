// Small helpers shared by the benchmark sections.
import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Runs a command to completion and returns wall time (ms), exit code and output. */
export function timeCommand(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ ms: performance.now() - started, code, stdout, stderr }))
  })
}

export async function medianOf(runs, fn) {
  const values = []
  for (let i = 0; i < runs; i++) values.push(await fn())
  return median(values)
}

export function fmt(ms) {
  return `${ms.toFixed(1)} ms`
}

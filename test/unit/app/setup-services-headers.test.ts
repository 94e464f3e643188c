/** The setup form (/login) lists and tests an endpoint with the headers configured for its origin only. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSetupServices } from '../../../source/app/setup-services.ts'
import { type EndpointHeader, headersFor } from '../../../source/config/headers.ts'
import { startScriptedServer } from '../../support/scripted-server.ts'
import type { ScriptedServer } from '../../support/scripted-types.ts'

let gw: ScriptedServer
let other: ScriptedServer
beforeEach(async () => {
  gw = await startScriptedServer()
  other = await startScriptedServer()
})
afterEach(async () => {
  await Promise.all([gw.close(), other.close()])
})

const signal = new AbortController().signal
const services = (headers: EndpointHeader[]) =>
  createSetupServices({
    paths: { configDir: '/nonexistent', userSettingsFile: '/nonexistent/settings.json' },
    env: {},
    headersFor: (url) => headersFor(headers, url),
  })

describe('/login with configured headers', () => {
  it('the endpoint they were configured for gets them (listing and test); another origin none', async () => {
    const headers: EndpointHeader[] = [
      { name: 'x-gw-key', value: 'secret', from: 'flag', origin: new URL(gw.baseUrl).origin },
    ]
    const s = services(headers)
    gw.enqueue({ text: 'OK' })
    other.enqueue({ text: 'OK' })
    expect((await s.listModels(gw.baseUrl, { kind: 'none' }, signal)).ok).toBe(true)
    expect((await s.test(gw.baseUrl, { kind: 'none' }, 'test-model', signal)).ok).toBe(true)
    expect((await s.listModels(other.baseUrl, { kind: 'none' }, signal)).ok).toBe(true)
    expect((await s.test(other.baseUrl, { kind: 'none' }, 'test-model', signal)).ok).toBe(true)
    expect(gw.modelListings[0]?.['x-gw-key']).toBe('secret')
    expect(gw.requests[0]?.headers['x-gw-key']).toBe('secret')
    expect(other.modelListings[0]?.['x-gw-key']).toBeUndefined()
    expect(other.requests[0]?.headers['x-gw-key']).toBeUndefined()
  })
})

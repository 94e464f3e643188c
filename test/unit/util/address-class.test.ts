import { describe, expect, it } from 'vitest'
import {
  type AddressClass,
  classifyAddress,
  classifyAddresses,
  isLocalHostName,
} from '../../../source/util/address-class.js'

describe('classifyAddress', () => {
  it.each<[string, AddressClass]>([
    ['127.0.0.1', 'loopback'],
    ['127.255.10.3', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['172.15.0.1', 'public'],
    ['172.32.0.1', 'public'],
    ['192.168.1.10', 'private'],
    ['192.169.1.10', 'public'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:c0a8:0101::1', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['not-an-ip', 'reserved'],
  ])('%s → %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls)
  })

  it('judges a set by its first non-public address, and an empty set as reserved', () => {
    expect(classifyAddresses(['8.8.8.8', '2606:4700:4700::1111'])).toBe('public')
    expect(classifyAddresses(['8.8.8.8', '127.0.0.1'])).toBe('loopback')
    expect(classifyAddresses([])).toBe('reserved')
  })

  it('knows localhost names', () => {
    expect(isLocalHostName('localhost')).toBe(true)
    expect(isLocalHostName('app.localhost.')).toBe(true)
    expect(isLocalHostName('localhost.example.com')).toBe(false)
  })
})

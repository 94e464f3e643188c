import { describe, expect, it } from 'vitest'
import type { ListeningPort } from '../../../source/store/domain.js'
import {
  combinePorts,
  decodeHexAddress,
  parseLsofListen,
  parseProcNetTcp,
  portsInOutput,
  socketInode,
} from '../../../source/tasks/listening-ports.js'
import { describePorts, openableUrl, portColumn, portDetail } from '../../../source/tasks/port-text.js'

// Real tables, read on Linux x86_64 (header lines end in spaces, as the kernel pads them).
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1568 1 00000000280d8808 100 0 0 10 0                      
   1: 0100007F:AAFA 0100007F:890D 06 00000000:00000000 03:00000D20 00000000     0        0 0 3 000000000d3d695b                                      
   2: 0100007F:ADB1 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9919 1 0000000066ffd879 100 0 0 10 0                      
   3: 0100007F:1435 0100007F:C2A4 01 00000000:00000000 00:00000000 00000000  1000        0 31337 1 0000000066ffd879 20 4 30 10 -1                    
`
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0000000000000000FFFF00000100007F:931B 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 15570 1 00000000cabd8db3 100 0 0 10 0
   1: 00000000000000000000000001000000:AEE9 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 15569 1 00000000901c8efa 100 0 0 10 0
   2: 00000000000000000000000000000000:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 20001 1 00000000901c8efa 100 0 0 10 0
   3: B80D0120000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 20002 1 00000000901c8efa 100 0 0 10 0
`

describe('parseProcNetTcp', () => {
  it('keeps LISTEN sockets (state 0A) of an IPv4 table, with hex ports and inodes', () => {
    expect(parseProcNetTcp(TCP)).toEqual([
      { address: '0.0.0.0', port: 2024, inode: 1568 },
      { address: '127.0.0.1', port: 44465, inode: 9919 },
    ])
  })

  it('decodes IPv6 tables: IPv4-mapped, loopback, wildcard and a global address', () => {
    expect(parseProcNetTcp(TCP6)).toEqual([
      { address: '::ffff:127.0.0.1', port: 37659, inode: 15570 },
      { address: '::1', port: 44777, inode: 15569 },
      { address: '::', port: 3000, inode: 20001 },
      { address: '2001:db8::1', port: 8080, inode: 20002 },
    ])
  })

  it.each([
    ['an empty table', ''],
    ['the header alone', TCP.split('\n')[0] ?? ''],
    ['a cut line', '   0: 0100007F:ADB1 00000000:0000 0A'],
    ['a bad port', '   0: 0100007F:XYZW 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 9 1'],
    ['a bad address', '   0: 0100007:ADB1 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 9 1'],
    ['port 0', '   0: 0100007F:0000 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 9 1'],
  ])('skips %s', (_, text) => {
    expect(parseProcNetTcp(text)).toEqual([])
  })

  it('reads big-endian tables in their own byte order', () => {
    expect(decodeHexAddress('7F000001', 'BE')).toBe('127.0.0.1')
    expect(decodeHexAddress('00000000000000000000000000000001', 'BE')).toBe('::1')
  })
})

describe('socketInode', () => {
  it.each([
    ['socket:[9919]', 9919],
    ['pipe:[123]', undefined],
    ['/dev/null', undefined],
    ['socket:[]', undefined],
    ['anon_inode:[eventpoll]', undefined],
  ])('%s → %s', (link, inode) => {
    expect(socketInode(link)).toBe(inode)
  })
})

describe('parseLsofListen', () => {
  it('groups the sockets of `lsof -Fgn` by process group (real output)', () => {
    const out = 'p12283\ng12277\nn[::1]:44777\nn127.0.0.1:37659\np12385\ng12385\nn*:44011\nn[::1]:35355\n'
    expect(parseLsofListen(out)).toEqual(
      new Map([
        [
          12277,
          [
            { address: '::1', port: 44777, inode: 0 },
            { address: '127.0.0.1', port: 37659, inode: 0 },
          ],
        ],
        [
          12385,
          [
            { address: '0.0.0.0', port: 44011, inode: 0 },
            { address: '::1', port: 35355, inode: 0 },
          ],
        ],
      ]),
    )
  })

  it('ignores names before a group, odd names and bad ports', () => {
    expect(parseLsofListen('n*:80\np1\ng1\nnlocalhost:80\nn*:99999\nn*:0\nf4\n')).toEqual(new Map())
  })
})

describe('portsInOutput', () => {
  it.each([
    [
      'Vite (coloured)',
      '  \x1b[32m➜\x1b[39m  \x1b[1mLocal\x1b[22m:   \x1b[36mhttp://localhost:\x1b[1m5173\x1b[22m/\x1b[39m\n',
      [{ port: 5173, url: 'http://localhost:5173/' }],
    ],
    [
      'a path kept',
      'Open http://127.0.0.1:8000/docs now',
      [{ port: 8000, url: 'http://127.0.0.1:8000/docs' }],
    ],
    [
      'a wildcard URL',
      'Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...',
      [{ port: 8000, url: 'http://localhost:8000/' }],
    ],
    ['IPv6 loopback', 'ready on https://[::1]:8443', [{ port: 8443, url: 'https://[::1]:8443/' }]],
    ['"Listening on :3000"', 'Listening on :3000\n', [{ port: 3000, url: 'http://localhost:3000/' }]],
    ['"running on port"', 'Server running on port 8080', [{ port: 8080, url: 'http://localhost:8080/' }]],
    ['"listening at 0.0.0.0:"', 'listening at 0.0.0.0:4000', [{ port: 4000, url: 'http://localhost:4000/' }]],
    [
      'each port once',
      'http://localhost:3000/ and again http://localhost:3000/x',
      [{ port: 3000, url: 'http://localhost:3000/' }],
    ],
    ['another host never', 'Network: http://192.168.1.5:5173/ or http://evil.example:5173/', []],
    ['no port', 'listening now, see http://localhost/', []],
    ['a time is no port', 'started at 12:30:45', []],
    ['out of range', 'http://localhost:70000/', []],
  ])('%s', (_, text, hints) => {
    expect(portsInOutput(text)).toEqual(hints)
  })
})

describe('combinePorts and describePorts', () => {
  const hints = [{ port: 5173, url: 'http://localhost:5173/' }]

  it('gives each socket the printed URL for its port, or one made from its address', () => {
    const ports = combinePorts(
      [
        { address: '127.0.0.1', port: 5173, reachable: true },
        { address: '::', port: 3000, reachable: true },
        { address: '::1', port: 9229, reachable: true },
      ],
      hints,
    )
    expect(ports.map((p) => p.url)).toEqual([
      'http://localhost:3000/',
      'http://localhost:5173/',
      'http://[::1]:9229/',
    ])
    expect(describePorts(ports)).toEqual([
      '[::]:3000 → http://localhost:3000/',
      '127.0.0.1:5173 → http://localhost:5173/',
      '[::1]:9229 → http://[::1]:9229/',
    ])
    expect(openableUrl(ports)).toBe('http://localhost:3000/')
  })

  it('offers no URL for a socket inside a network of its own', () => {
    const ports = combinePorts([{ address: '127.0.0.1', port: 5173, reachable: false }], hints)
    expect(ports).toEqual([{ address: '127.0.0.1', port: 5173, reachable: false, seen: 'socket' }])
    expect(openableUrl(ports)).toBeUndefined()
    expect(describePorts(ports)[0]).toContain('not reachable from the host')
  })

  it('ignores printed ports when sockets were listed, and uses them when they cannot be', () => {
    expect(combinePorts([], hints)).toEqual([])
    const printed = combinePorts(null, hints)
    expect(printed).toEqual([
      { address: 'localhost', port: 5173, reachable: true, url: 'http://localhost:5173/', seen: 'output' },
    ])
    expect(describePorts(printed)[0]).toBe(
      'localhost:5173 → http://localhost:5173/ (printed in its output; its sockets cannot be listed here)',
    )
  })

  it('lists a socket seen twice once', () => {
    const twice = { address: '0.0.0.0', port: 80, reachable: true }
    expect(combinePorts([twice, twice], [])).toHaveLength(1)
  })
})

describe('the pane column and detail', () => {
  const port = (n: number, reachable = true) =>
    combinePorts([{ address: '127.0.0.1', port: n, reachable }], [])[0] as ListeningPort

  it.each([
    [[], '', ''],
    [[port(5173)], ':5173', 'http://127.0.0.1:5173/'],
    [[port(3000), port(5173)], ':3000 :5173', 'http://127.0.0.1:3000/'],
    [[port(1), port(2), port(3), port(4), port(5)], ':1 :2 :3 +2', 'http://127.0.0.1:1/'],
    [[port(5173, false)], ':5173 unreachable', "127.0.0.1:5173 is inside the sandbox's own network"],
  ])('%j', (ports, column, detail) => {
    expect(portColumn(ports)).toBe(column)
    expect(portDetail(ports)).toBe(detail)
  })
})

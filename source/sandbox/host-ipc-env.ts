/**
 * Environment variables a sandboxed command does not get: each names a way to a host process (a
 * socket, a display, a session bus, a credential cache). The seccomp filter already refuses Unix
 * sockets and private mounts hide most of these paths, but a variable still points programs at them
 * (they fail later, less clearly), and one that holds a TCP address (`DOCKER_HOST=tcp://…`) would be
 * reached when the network is allowed. Only names: a value is never read.
 */
export const HOST_IPC_ENV = [
  // Agents holding keys.
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'GNOME_KEYRING_CONTROL',
  'GNOME_KEYRING_PID',
  // Message buses.
  'DBUS_SESSION_BUS_ADDRESS',
  'DBUS_SYSTEM_BUS_ADDRESS',
  'DBUS_STARTER_ADDRESS',
  'AT_SPI_BUS_ADDRESS',
  // Container and VM daemons.
  'DOCKER_HOST',
  'CONTAINER_HOST',
  'PODMAN_HOST',
  'LIBVIRT_DEFAULT_URI',
  // Displays and sound: a window can be typed into, a screen read.
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'WAYLAND_SOCKET',
  'XAUTHORITY',
  'PULSE_SERVER',
  'PULSE_COOKIE',
  'PIPEWIRE_REMOTE',
  // Window managers, terminals, multiplexers and editors that take commands over a socket.
  'SWAYSOCK',
  'I3SOCK',
  'HYPRLAND_INSTANCE_SIGNATURE',
  'NIRI_SOCKET',
  'KITTY_LISTEN_ON',
  'WEZTERM_UNIX_SOCKET',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'ZELLIJ_SESSION_NAME',
  'NVIM',
  'NVIM_LISTEN_ADDRESS',
  'VSCODE_IPC_HOOK_CLI',
  'VSCODE_GIT_IPC_HANDLE',
  'EMACS_SOCKET_NAME',
  // Credential caches and service managers.
  'KRB5CCNAME',
  'NOTIFY_SOCKET',
  'LISTEN_FDS',
  'LISTEN_PID',
  'LISTEN_FDNAMES',
] as const

import type { Fixture } from '../support/git-server.ts';

/**
 * A student's hostile repository: each script performs one attack on the grading machine and
 * prints what it reached, so a test sees the attack fail (and, run outside the sandbox, succeed).
 * Every script has a control that must work inside the sandbox too, so a broken script cannot
 * pass for a blocked attack. Perl (essential on Debian) makes the network calls.
 */
export const hostile: Fixture = {
  'own.txt': 'my own file\n',
  // Connects to each host:port argument; the control listens on the sandbox's own loopback.
  'net.pl': [
    'use strict; use warnings; use IO::Socket::IP;',
    '$| = 1;',
    "my $server = IO::Socket::IP->new(Listen => 1, LocalHost => '127.0.0.1', LocalPort => 0, Proto => 'tcp');",
    "my $own = $server && IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $server->sockport, Proto => 'tcp', Timeout => 2);",
    'print "control: ", ($own ? "connected" : "failed"), "\\n";',
    'for my $target (@ARGV) {',
    '  my ($host, $port) = $target =~ /^\\[?(.*?)\\]?:(\\d+)$/;',
    "  my $socket = IO::Socket::IP->new(PeerHost => $host, PeerPort => $port, Proto => 'tcp', Timeout => 2);",
    '  print "target $target: ", ($socket ? "CONNECTED" : "unreachable"), "\\n";',
    '}',
    "open(my $dev, '<', '/proc/net/dev') or die; my @interfaces = map { /^\\s*([^:]+):/ ? $1 : () } <$dev>;",
    'print "interfaces: @interfaces\\n";',
    "open(my $route, '<', '/proc/net/route') or die; my @routes = <$route>;",
    'print "routes: ", scalar(@routes) - 1, "\\n";',
    '',
  ].join('\n'),
  // Asks DynamoDB Local at the host:port argument for its tables: the first step to rewriting grades.
  'dynamo.pl': [
    'use strict; use warnings; use IO::Socket::IP;',
    'my ($host, $port) = $ARGV[0] =~ /^\\[?(.*?)\\]?:(\\d+)$/;',
    'my $socket = IO::Socket::IP->new(PeerHost => $host, PeerPort => $port, Proto => \'tcp\', Timeout => 2) or do { print "DynamoDB unreachable\\n"; exit 0 };',
    "my $body = '{}';",
    'print $socket "POST / HTTP/1.1\\r\\nHost: $host:$port\\r\\nContent-Type: application/x-amz-json-1.0\\r\\nX-Amz-Target: DynamoDB_20120810.ListTables\\r\\n"',
    '  . "Authorization: AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=00\\r\\n"',
    '  . "Content-Length: " . length($body) . "\\r\\nConnection: close\\r\\n\\r\\n$body";',
    'my $status = <$socket> // "nothing\\n"; print "DynamoDB answered: $status";',
    '',
  ].join('\n'),
  // Reads or lists each path argument; the control reads the submission's own file.
  'peek.sh': [
    'echo "control: $(cat own.txt)"',
    'for path in "$@"; do',
    '  if [ -e "$path" ] || [ -L "$path" ]; then echo "SEEN $path: $(ls -d "$path" 2>&1) $(head -c 64 "$path" 2>&1 | tr -d "\\n")"; else echo "hidden $path"; fi',
    'done',
    'echo "processes: $(ls /proc | grep -c "^[0-9]")"',
    'for cmdline in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$cmdline"; echo; done > /tmp/cmdlines',
    'grep -E "vitest|harness\\.mjs|DynamoDBLocal|node_modules|/opt/grader" /tmp/cmdlines && echo "SAW A PROCESS OUTSIDE"',
    'echo "uid: $(id -u)"',
    'echo "end"',
    '',
  ].join('\n'),
  // Leaves a double-forked daemon (new session, another HOME and folder) that writes everywhere it can.
  'daemon.sh': [
    'marker="$1"',
    '( cd / && HOME=/tmp setsid sh -c \'while :; do date >> /tmp/heartbeat; date >> /dev/shm/heartbeat; date >> "$0"/heartbeat; sleep 0.05; done\' "$PWD" "$marker" </dev/null >/dev/null 2>&1 & )',
    'sleep 0.3',
    'echo "started $(cat /tmp/heartbeat | wc -l)"',
    '',
  ].join('\n'),
  // What a test case after the daemon's (or a later job) finds of it.
  'traces.sh': [
    'echo "control: $(cat own.txt)"',
    'ls -a . /tmp /dev/shm | tr "\\n" " "; echo',
    'cat /tmp/heartbeat /dev/shm/heartbeat ./heartbeat 2>/dev/null | wc -l | sed "s/^/heartbeats: /"',
    'echo "processes: $(ls /proc | grep -c "^[0-9]")"',
    '',
  ].join('\n'),
  // Tries to make the grader lie: fake results on every output and every file descriptor it can
  // open, every process it can see killed, the harness looked for.
  'lie.sh': [
    'fake=\'{"testCases":[{"name":"Rigged","passed":true,"message":"Passed","timedOut":false,"exitCode":0,"autochecks":[]}]}\'',
    'echo "$fake"; echo "$fake" >&2',
    'for fd in /proc/[0-9]*/fd/*; do timeout 1 sh -c \'echo "$1" > "$2"\' lie "$fake" "$fd" 2>/dev/null && echo "wrote $fd"; done',
    'grep -l "harness" /proc/[0-9]*/cmdline 2>/dev/null && echo "FOUND THE HARNESS"',
    // Its own shell and that shell's parent are spared only so that it can report to its end.
    'for pid in $(ls /proc | grep "^[0-9]*$"); do [ "$pid" != "$$" ] && [ "$pid" != "$PPID" ] && kill -9 "$pid" 2>/dev/null && echo "killed $pid"; done',
    'echo "end"',
    '',
  ].join('\n'),
  // Swaps a folder for links out of the sandbox, forever, in the background: a clean-up that
  // walks this folder as root after the job would delete what the links point to.
  'swap.sh': [
    'target="$1"',
    '( setsid sh -c \'while :; do rm -rf victim; mkdir -p victim/sub; touch victim/sub/file; rm -rf victim; ln -s "$0" victim 2>/dev/null; ln -s / victim/root 2>/dev/null; done\' "$target" </dev/null >/dev/null 2>&1 & )',
    'mkdir -p deep/a/b; ln -s "$target" deep/a/b/escape; ln -s / deep/root',
    'sleep 0.2; echo "swapping"',
    '',
  ].join('\n'),
  'fork.sh': 'f() { f | f & }; f; sleep 2; echo survived\n',
  'fork-loop.pl': 'fork while 1;\n',
  'memory.pl': 'my @hoard; push @hoard, "x" x 1e6 while 1;\n',
  // Four processes holding 60 MB each for 5 s, each within a 96 MiB per-process limit: only the
  // total is over. (`$x = "a" x 60e6` would copy, need 120 MB at once and fail, holding it for an instant.)
  'memory-split.sh': 'for i in 1 2 3 4; do perl -e \'$x = "a"; $x x= 60e6; sleep 5\' & done; wait\n',
  'spin.sh': 'while :; do :; done\n',
  'huge-file.sh': 'head -c 100000000 /dev/zero > huge\n',
  'fill-disk.sh': 'i=0; while :; do head -c 4000000 /dev/zero > part$i || exit 1; i=$((i+1)); done\n',
  'fill-shm.sh': 'i=0; while :; do head -c 4000000 /dev/zero > /dev/shm/part$i || exit 1; i=$((i+1)); done\n',
  'sleep.sh': 'echo "$1" > marker.txt; sleep "$2"; echo slept\n',
};

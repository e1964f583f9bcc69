#!/usr/bin/env python3
"""What the validation sandbox costs a run (issue 30), measured.

Three ways to run the same playbooks, alternated round by round on the
same machine:

* ``bare``: ansible-playbook as the executor, no sandbox (what we never
  do: the reference);
* ``shared network``: the bwrap sandbox sharing the executor's network
  (before the egress proxy);
* ``own network``: ``runner.run`` with no key: the sandbox with a
  network of its own, relay.py inside, the egress proxy outside;
* ``+ ssh-agent``: what a run on servers does now (``runner.run`` with
  a key: the run's ssh-agent started and the key loaded, issue 37).

Two playbooks: one task (``debug``: the fixed cost of a run) and ten
HTTP GETs of a local server (``uri``: the cost per connection, which
goes through relay and proxy in the third way). Prints the median wall
time of each and the ratios to ``bare``. Needs ansible-core beside this
Python and bwrap. Usage: ``python3 tools/bench/validation_sandbox.py
[--rounds N]``.
"""

import argparse
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)


class _Quiet(http.server.BaseHTTPRequestHandler):

    def do_GET(self):
        self.send_response(200)
        self.send_header('Content-Length', '2')
        self.end_headers()
        self.wfile.write(b'ok')

    def log_message(self, *args):
        pass


def playbooks(port):
    head = '- hosts: localhost\n  gather_facts: false\n  tasks:\n'
    return {
        'one task': head + '    - debug: {msg: hi}\n',
        'ten HTTP GETs': head + (
            '    - uri: {url: "http://127.0.0.1:%d/{{ item }}"}\n'
            '      loop: "{{ range(10) | list }}"\n' % port),
    }


def by_hand(text, inventory, sandboxed, share_net):
    """ansible-playbook bare, or in the sandbox with the executor's
    network (the two ways ``runner`` no longer runs)."""
    from tripleoplanclient.validations import runner
    from tripleoplanclient.validations import sandbox
    from tripleoplanclient.validations import shipped
    program = runner.ansible_playbook()
    with tempfile.TemporaryDirectory() as home:
        os.makedirs(os.path.join(home, 'tmp'))
        with open(os.path.join(home, 'p.yaml'), 'w') as f:
            f.write(text)
        with open(os.path.join(home, 'i.json'), 'w') as f:
            json.dump(inventory, f)
        seen = sandbox.INPUTS if sandboxed else home
        argv = [program, '-i', os.path.join(seen, 'i.json'),
                os.path.join(seen, 'p.yaml')]
        env = runner.environment('b')
        if sandboxed:
            argv = sandbox.command(argv, home, [
                shipped.CALLBACKS, os.path.dirname(os.path.realpath(
                    program))])
            if share_net:
                argv.insert(argv.index('--unshare-all') + 1, '--share-net')
        else:
            env.update(HOME=home, TMPDIR=home,
                       ANSIBLE_LOCAL_TEMP=os.path.join(home, 'tmp'))
        for key in ('http_proxy', 'https_proxy', 'HTTP_PROXY',
                    'HTTPS_PROXY'):
            env.pop(key)
        subprocess.run(argv, env=env, cwd=home, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def a_key(place):
    path = os.path.join(place, 'id_ed25519')
    subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f',
                    path], check=True)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args()
    from tripleoplanclient.validations import inventory
    from tripleoplanclient.validations import runner
    if runner.ansible_playbook() is None:
        sys.exit('ansible-core is not installed beside %s' % sys.executable)
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Quiet)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    local = inventory.build(sys.executable)

    keys = tempfile.mkdtemp()
    key = a_key(keys)

    def ours(text, ssh_key=None):
        found = runner.run(text.encode(), {}, local, 120, 'bench',
                           targets=[('127.0.0.1', port)], ssh_key=ssh_key)
        if found['status'] != 'PASSED':
            sys.exit('the sandboxed run failed: %s' % found['message'])

    ways = [('bare', lambda t: by_hand(t, local, False, False)),
            ('shared network', lambda t: by_hand(t, local, True, True)),
            ('own network', ours),
            ('+ ssh-agent', lambda t: ours(t, key))]
    for name, text in playbooks(port).items():
        times = {way: [] for way, _ in ways}
        for _ in range(args.rounds):
            for way, run in ways:
                begin = time.monotonic()
                run(text)
                times[way].append(time.monotonic() - begin)
        bare = statistics.median(times['bare'])
        print('%s (%d rounds, median):' % (name, args.rounds))
        for way, _ in ways:
            median = statistics.median(times[way])
            print('  %-15s %6.2f s  x%.2f of bare'
                  % (way, median, median / bare))
    httpd.shutdown()
    import shutil
    shutil.rmtree(keys)


if __name__ == '__main__':
    main()

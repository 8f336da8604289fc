"""The dashboard under a hostile neighbour on the same host: 1,000 idle connections and a
slowloris (a byte every few seconds) neither lock the owner out nor cost a thread each;
slow requests are cut off; the owner's requests stay fast. Loopback only, bounded in
count and time, every socket closed at the end."""
import json
import os
import resource
import socket
import time
import urllib.request

from ssimtest import SsimTestCase, wait_for

IDLE = 1000
SLOW = 50


def threads_of(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


class DashboardFlood(SsimTestCase):
    def setUp(self):
        super().setUp()
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        need = IDLE + SLOW + 200
        if soft < need:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
            self.addCleanup(resource.setrlimit, resource.RLIMIT_NOFILE, (soft, hard))
        self.sockets = []
        self.addCleanup(lambda: [s.close() for s in self.sockets])

    def connect(self, port):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sockets.append(s)
        return s

    def test_idle_floods_and_slowloris_never_lock_the_owner_out(self):
        self.write("experiment.yaml", "experiment: {name: f}\nmodels:\n  - {name: m, exe: /bin/true}\n")
        self.ssim("run", "experiment.yaml", check=0)
        dash = self.ssim_background("dashboard", "f", "--port", "0")
        url = dash.stdout.readline().strip()
        base, token = url.split("/?token=")
        port = int(base.rsplit(":", 1)[1])
        api = f"{base}/api/status?exp={os.path.join(self.dir, 'f')}&token={token}"

        def owner_request():
            t0 = time.monotonic()
            with urllib.request.urlopen(api, timeout=10) as r:
                self.assertEqual(json.loads(r.read())["experiment"], "f")
            return time.monotonic() - t0

        quiet = min(owner_request() for _ in range(5))
        idle = [self.connect(port) for _ in range(IDLE)]      # connect, send nothing
        slow = [self.connect(port) for _ in range(SLOW)]
        for s in slow:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")       # headers begun, never ended
        latencies = []
        for _ in range(20):
            latencies.append(owner_request())
            for s in slow[:10]:
                try:
                    s.sendall(b"X")                          # a byte now and then keeps nothing open
                except OSError:
                    pass
        latencies.sort()
        median, worst = latencies[len(latencies) // 2], latencies[-1]
        print(f"\nowner request with {IDLE} idle + {SLOW} slow connections: median {median * 1000:.1f} ms, "
              f"worst {worst * 1000:.1f} ms (quiet: {quiet * 1000:.1f} ms)")
        self.assertLess(worst, 2.0)
        self.assertLessEqual(threads_of(dash.pid), 4)  # one event loop, not a thread per connection

        # A slowloris is cut off once its request's time is up, whatever it still sends.
        def cut_off(s):
            try:
                s.settimeout(0.01)
                return s.recv(1) == b""
            except socket.timeout:
                return False
            except OSError:
                return True
        wait_for(lambda: all(cut_off(s) for s in slow[10:]), timeout=20, what="the slow connections to be closed")
        self.assertLess(owner_request(), 2.0)

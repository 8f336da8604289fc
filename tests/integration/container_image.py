"""The Charliecloud directory image the container tests run in: Debian bookworm with
Python, numpy, PyTorch and a Redis server (from Debian's packages, by mmdebstrap), and nothing of ssim:
ssim binds its Python module in. Built once per machine into a cache folder, under a
lock, and reused; None when this machine cannot build or run it."""
import fcntl
import hashlib
import os
import shutil
import subprocess

PACKAGES = ["python3-minimal", "python3-numpy", "python3-torch", "redis-server"]
CACHE = os.environ.get("SSIM_TEST_IMAGE_CACHE", "/var/cache/ssim-test/images")
MARKER = "ssim-test-image"  # a file at the image's root: the program is inside


def test_image():
    if not shutil.which("ch-run") or not shutil.which("mmdebstrap") or os.geteuid() != 0:
        return None
    key = hashlib.sha256(" ".join(PACKAGES).encode()).hexdigest()[:12]
    path = os.path.join(CACHE, f"bookworm-{key}")
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(path, MARKER)):
            return path
        building = path + ".building"
        shutil.rmtree(building, ignore_errors=True)
        p = subprocess.run(["mmdebstrap", "--quiet", "--variant=essential", "--include=" + ",".join(PACKAGES),
                            "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
                            "bookworm", building], capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise AssertionError(f"mmdebstrap failed ({p.returncode}): {p.stderr[-2000:]}")
        with open(os.path.join(building, MARKER), "w") as f:
            f.write("built by tests/integration/container_image.py\n")
        shutil.rmtree(path, ignore_errors=True)
        os.rename(building, path)
        return path

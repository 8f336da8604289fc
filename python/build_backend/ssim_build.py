"""A PEP 517 build backend for `pip install <ssim source>/python` that needs nothing from
PyPI (no setuptools, no wheel, no scikit-build: none of them is in every environment, and
a machine without network cannot fetch them). It configures the ssim source tree with
CMake for the interpreter running pip, builds the Python module, the `ssim` command and
its supervisor, and zips them into a wheel by hand (the format is a zip with three
metadata files: https://packaging.python.org/specifications/binary-distribution-format/).

SSIM_PIP_BUILD_DIR keeps the CMake build folder between installs (default: a temporary
folder, removed afterwards)."""
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))  # the repository: python/build_backend/..
NAME = "ssim"
SUMMARY = "ssim: HPC workflows with a database, MPI producers and PyTorch trainers"


def _version():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        match = re.search(r"project\(ssim VERSION ([0-9.]+)", f.read())
    return match.group(1) if match else "0.0.0"


def _tag():
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"cp{version}-cp{version}-{platform}"


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def _metadata_files():
    requires = f"Requires-Python: >=3.9\n"
    return {
        "METADATA": f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
                    f"{requires}Provides-Extra: data\nRequires-Dist: numpy; extra == \"data\"\n",
        "WHEEL": f"Wheel-Version: 1.0\nGenerator: ssim_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n",
        "entry_points.txt": "[console_scripts]\nssim = ssim._cli:main\n",
        "top_level.txt": "ssim\n",
    }


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    folder = os.path.join(metadata_directory, _dist_info())
    os.makedirs(folder, exist_ok=True)
    for name, text in _metadata_files().items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    return _dist_info()


def _run(args, log):
    log.write("+ " + " ".join(args) + "\n")
    log.flush()
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.write(proc.stdout)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-6000:])
        raise RuntimeError(f"ssim build step failed ({proc.returncode}): {' '.join(args)}")


def _build(build_dir):
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    if os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        generator = []
    sys.stderr.write(f"ssim: building the module, the ssim command and its supervisor for {sys.executable} "
                     f"in {build_dir} (about two minutes on 2 cores)\n")
    with open(os.path.join(build_dir, "pip-build.log"), "a") as log:
        _run(["cmake", "-S", SOURCE, "-B", build_dir, *generator, "-DCMAKE_BUILD_TYPE=Release",
              "-DBUILD_TESTING=OFF", "-DSSIM_FORTRAN=OFF", "-DSSIM_EXAMPLES=OFF", "-DSSIM_PYTHON=ON",
              f"-DSSIM_PYTHON_EXECUTABLE={sys.executable}", "-DCMAKE_UNITY_BUILD=ON",
              "-DCMAKE_UNITY_BUILD_BATCH_SIZE=16"], log)
        _run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2), "--target",
              "ssim", "ssim-supervise", "ssim-door", "ssim_python", *_inference_target(build_dir)], log)


def _inference_target(build_dir):
    """The inference service too where CMake found libtorch (Debian's libtorch-dev):
    without it, `inference: true` is refused by ssim validate and ssim run, and ssim
    doctor says how to get it."""
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        return ["ssim-infer"] if re.search(r"^SSIM_INFERENCE:BOOL=(ON|TRUE|1|YES)$", f.read(), re.M | re.I) else []


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [arcname, f"sha256={digest}", str(len(data))]


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    keep = os.environ.get("SSIM_PIP_BUILD_DIR")
    build_dir = os.path.abspath(keep) if keep else tempfile.mkdtemp(prefix="ssim-pip-")
    os.makedirs(build_dir, exist_ok=True)
    try:
        _build(build_dir)
        files = []  # (arcname, path, executable)
        package = os.path.join(build_dir, "python", "ssim")
        for name in sorted(os.listdir(package)):
            path = os.path.join(package, name)
            if os.path.isfile(path) and (name.endswith(".py") or name.endswith(".so")):
                files.append((f"ssim/{name}", path, False))
        for program in ("ssim", "ssim-supervise", "ssim-door", "ssim-infer"):
            path = os.path.join(build_dir, "apps", "ssim", program)  # all built into apps/ssim
            if program != "ssim-infer" or os.path.exists(path):
                files.append((f"ssim/bin/{program}", path, True))
        wheel_name = f"{NAME}-{_version()}-{_tag()}.whl"
        records = []
        with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as whl:
            def add(arcname, data, executable=False):
                info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
                info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                whl.writestr(info, data)
                records.append(_record_line(arcname, data))

            for arcname, path, executable in files:
                with open(path, "rb") as f:
                    add(arcname, f.read(), executable)
            for name, text in _metadata_files().items():
                add(f"{_dist_info()}/{name}", text.encode())
            record = io.StringIO()
            writer = csv.writer(record, lineterminator="\n")
            writer.writerows(records)
            writer.writerow([f"{_dist_info()}/RECORD", "", ""])
            whl.writestr(f"{_dist_info()}/RECORD", record.getvalue())
        return wheel_name
    finally:
        if not keep:
            shutil.rmtree(build_dir, ignore_errors=True)

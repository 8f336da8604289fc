"""Device check producer: one member of an ensemble streams batches of samples drawn
around its member index, labelled with it, into the database (no MPI needed)."""
import os
import time

import numpy as np

from ssim.ml import Uploader

member = int(os.environ.get("SSIM_MEMBER_INDEX", "0"))
up = Uploader(num_classes=2, rank=0, world_size=1)
up.publish_info()
rng = np.random.default_rng(7 + member)
for _ in range(12):
    samples = (2.0 * member + rng.standard_normal((256, 32))).astype(np.float32)
    up.put_batch(samples, np.full(256, member, dtype=np.int64))
    time.sleep(0.05)
print(f"producer {member} streamed 12 batches", flush=True)

"""Tests of render.py: what it computes from round rows, and that --check catches a drifted doc.
Run: python3 -m unittest discover -s docs/figures (CI does)."""
import contextlib
import io
import os
import tempfile
import unittest

import render

ROWS = """meta\t2026-12-07T07:09:57Z\tabc1234\t2
cpu\tkeep-alive\t1\tshare\t2.94\t1.041\t125821
cpu\tkeep-alive\t1\tnginx\t2.83\t1.000\t157472
cpu-round\tkeep-alive\t1\tshare\t1\t138435\t1\t3.11\t0.13\t40.58
cpu-round\tkeep-alive\t1\tnginx\t1\t184356\t1\t2.60\t0.17\t4.24
cpu-round\tkeep-alive\t1\tnginx\t2\t130589\t1\t3.14\t0.18\t13.17
cpu-round\tkeep-alive\t1\tshare\t2\t113207\t1\t2.74\t0.15\t74.30
landing\tcold\t1\t16/16\t16/16
landing\tcold\t2\t17/15\t16/16
"""


class RenderTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        os.makedirs(os.path.join(self.root, "docs"))
        self.tsv = os.path.join(self.root, "rows.tsv")
        with open(self.tsv, "w") as f:
            f.write(ROWS)
        for rel, name in (("docs/bench.md", "bench"), ("README.md", "readme")):
            with open(os.path.join(self.root, rel), "w") as f:
                f.write(f"# x\n<!-- figures:{name}:begin -->\nold\n<!-- figures:{name}:end -->\ntail\n")

    def tearDown(self):
        self.dir.cleanup()

    def run_render(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = render.main(["--tsv", self.tsv, "--root", self.root, *args])
        return rc, out.getvalue()

    def test_the_rounds_give_the_spread_the_median_p50_p99_and_requests_a_second(self):
        runs, rows = render.read(self.tsv)
        block = render.bench_block(runs, rows)
        # share/nginx round by round: 3.11/2.60 = 1.196, 2.74/3.14 = 0.873
        self.assertIn("| keep-alive | 1 | m0 share | **1.041×** | 0.873–1.196× | 2.94 | 125 821 | 0.14 | 57.4 |", block)
        self.assertIn("landed exact in **1 of 2**; settled exact 1 s later in 2 of 2", block)

    def test_a_field_the_run_did_not_record_is_a_dash_and_said_so(self):
        with open(self.tsv, "w") as f:
            f.write(ROWS.replace("\t125821", "\t-"))
        runs, rows = render.read(self.tsv)
        block = render.bench_block(runs, rows)
        self.assertIn("| 2.94 | — |", block)
        self.assertIn("— : not in the TSV's rows", block)

    def test_check_fails_on_a_stale_block_and_passes_once_written(self):
        self.assertEqual(1, self.run_render("--check")[0])
        self.assertEqual(0, self.run_render("--write")[0])
        self.assertEqual(0, self.run_render("--check")[0])
        with open(os.path.join(self.root, "README.md")) as f:
            text = f.read()
        self.assertIn("Keep-alive hello at 1 worker: 1.041× nginx's.", text)
        self.assertTrue(text.endswith("<!-- figures:readme:end -->\ntail\n"))
        with open(os.path.join(self.root, "README.md"), "w") as f:
            f.write(text.replace("1.041×", "0.9×"))
        rc, diff = self.run_render("--check")
        self.assertEqual(1, rc)
        self.assertIn("-- Keep-alive hello at 1 worker: 0.9× nginx's.", diff)

    def test_the_embedding_rows_give_a_table_and_the_readme_line(self):
        with open(self.tsv, "a") as f:
            f.write("meta\t2026-12-07T13:40:30Z\tdef5678\t2\n"
                    "embed\t1\t1\t32\tauto\t38.2\t16.30\t0.066\t177.11\t557.46\n"
                    "embed-ratio\t1\t1\t32\tauto/one\treq/s\t1.007\t1.007 0.745 1.150\n"
                    "embed-ratio\t1\t1\t32\tauto/node\tp99\t0.420\t0.4 0.42 0.5\n"
                    "embed-open\t1\t1\t50\tnode\t26\t11.09\t2.093\t20.10\t254.60\t0\n")
        runs, rows = render.read(self.tsv)
        block = render.bench_block(runs, rows)
        self.assertIn("| 1 runtime thread a call, 1 handler thread | 32 | m0, 2 workers (defaults) | 38.2 | 177.11 | 557.46 | 16.30 | 0.066 |", block)
        self.assertIn("| 32 | auto/one req/s | **1.007** | 1.007 0.745 1.150 |", block)
        self.assertIn("| 50 %, 1 runtime thread a call, 1 handler thread | Node cluster, 2 workers | 26 | 20.10 | 254.60 | 11.09 | 2.093 | 0 |", block)
        readme = render.readme_block(runs, rows)
        self.assertIn("sized (1 runtime thread a call), c32: 2 workers 1.007× 1 worker, p99 0.420× Node's.", readme)
        self.assertIn("def5678 at 2026-12-07 13:40 UTC (embed)", readme)

    def test_a_doc_without_its_block_is_an_error(self):
        with open(os.path.join(self.root, "docs/bench.md"), "w") as f:
            f.write("# no block\n")
        with self.assertRaises(SystemExit):
            self.run_render("--check")


if __name__ == "__main__":
    unittest.main()

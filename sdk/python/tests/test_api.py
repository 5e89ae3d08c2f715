"""Tests of the Sous Python SDK against a live context API.

The live tests need ``SOUS_CONTEXT_URL`` (a running ``sous proxy --context-only``) and
``SOUS_TEST_REPO`` (the repository it serves, holding ``src/parser.ts`` with ``parseGrammar``);
test/python-sdk.test.ts starts both and runs ``python3 -m unittest discover sdk/python``. Without
them a live test fails and says what to set: it is never skipped.
"""

import os
import tempfile
import unittest

from sous import api
from sous.api import ContextPackage, SousError, SousUnavailableError

LIVE_URL = os.environ.get("SOUS_CONTEXT_URL")
REPO = os.environ.get("SOUS_TEST_REPO")


def need_live(test):
    """A live test without a context API fails with what to set (run it through test/python-sdk.test.ts)."""
    if LIVE_URL and REPO:
        return test

    def fail(self):
        self.fail("SOUS_CONTEXT_URL and SOUS_TEST_REPO are not set: start a context API (npx jest test/python-sdk.test.ts does) and point them at it")
    return fail


class QueryLiveTest(unittest.TestCase):
    @need_live
    def test_query_returns_a_package_with_injected_context(self):
        package = api.query("where is parseGrammar defined", REPO, client_id="sdk-test")
        self.assertIsInstance(package, ContextPackage)
        self.assertEqual(package.client_id, "sdk-test")
        self.assertEqual(package.repo_path, os.path.abspath(REPO))
        self.assertEqual(package.items[0].path, "src/parser.ts")
        self.assertEqual(package.items[0].rank, 1)
        self.assertGreaterEqual(package.files_indexed, 2)
        self.assertIn(package.index_state, ("ready", "indexing"))
        # The assembled context names the file and carries its code.
        self.assertIn("src/parser.ts", package.injected_context)
        self.assertIn("parseGrammar", package.injected_context)
        self.assertTrue(package.injected_context.startswith("Repository context prepared by Sous"))

    @need_live
    def test_top_n_limits_the_files(self):
        package = api.query("parseGrammar lexTokens", REPO, top_n=1)
        self.assertEqual(len(package.items), 1)

    @need_live
    def test_a_refused_query_raises_with_the_field(self):
        with self.assertRaises(SousError) as caught:
            api.query("x" * 40_000, REPO)
        self.assertEqual(caught.exception.status, 400)
        self.assertEqual(caught.exception.where, "body.prompt")

    @need_live
    def test_an_unreachable_api_says_what_to_start(self):
        with self.assertRaises(SousUnavailableError) as caught:
            api.query("parseGrammar", REPO, base_url="http://127.0.0.1:1")
        self.assertIn("sous proxy --context-only", str(caught.exception))


class ArgumentsTest(unittest.TestCase):
    """Bad arguments are refused before anything is sent."""

    def test_empty_query(self):
        with self.assertRaises(ValueError):
            api.query("   ", tempfile.gettempdir())

    def test_missing_repository(self):
        with self.assertRaises(ValueError):
            api.query("parseGrammar", "/no/such/repository/here")

    def test_bad_client_id(self):
        with self.assertRaises(ValueError):
            api.query("parseGrammar", tempfile.gettempdir(), client_id="has spaces")

    def test_bad_top_n(self):
        with self.assertRaises(ValueError):
            api.query("parseGrammar", tempfile.gettempdir(), top_n=0)

    def test_bad_base_url(self):
        with self.assertRaises(ValueError):
            api.query("parseGrammar", tempfile.gettempdir(), base_url="ftp://x")


if __name__ == "__main__":
    unittest.main()

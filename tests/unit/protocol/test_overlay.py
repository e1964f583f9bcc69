"""The overlay a request carries (``protocol.overlay``): files
compressed into text, bounded once decompressed."""

import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol


class TestOverlay(unittest.TestCase):

    def test_round_trip(self):
        files = {'a.yaml': b'x: 1\n' * 1000, 'user-files/b': b'',
                 'bin': bytes(range(256))}
        encoded = protocol.encode_overlay(files)
        self.assertTrue(all(isinstance(v, str) for v in encoded.values()))
        # compressed: text the size of the zlib stream, not of the content
        self.assertLess(len(encoded['a.yaml']), 200)
        self.assertEqual(files, protocol.decode_overlay(encoded))
        self.assertEqual({}, protocol.decode_overlay(None))

    def test_the_limit_counts_decompressed_bytes(self):
        encoded = protocol.encode_overlay({'a': b'a' * 600, 'b': b'b' * 400})
        self.assertEqual(2, len(protocol.decode_overlay(encoded, limit=1000)))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'larger than 999 bytes once '
                                    'decompressed'):
            protocol.decode_overlay(encoded, limit=999)

    def test_a_path_that_is_no_text_is_refused(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'overlay entry 1 is not text'):
            protocol.decode_overlay({1: 'eJwDAAAAAAE='})

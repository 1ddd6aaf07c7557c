#!/usr/bin/env bash
# Draws the raster icons in public/ from public/icon.svg (the favicon modern browsers take as is).
# Run after changing the SVG and commit the results: CI and `npm ci` do not need these tools.
# Needs rsvg-convert and icotool (Debian: apt-get install librsvg2-bin icoutils).
set -euo pipefail
cd "$(dirname "$0")/.."
svg=public/icon.svg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The SVG's light-scheme colours; its dark-scheme rule does not apply to a raster.
for size in 16 32 192 512; do rsvg-convert -w "$size" -h "$size" "$svg" -o "$tmp/icon-$size.png"; done
icotool -c -o public/favicon.ico "$tmp/icon-16.png" "$tmp/icon-32.png"
cp "$tmp/icon-192.png" "$tmp/icon-512.png" public/
# iOS fills transparent corners with black and rounds the icon itself: a full square of the tile colour.
rsvg-convert -w 180 -h 180 -b "#0f172a" "$svg" -o public/apple-touch-icon.png

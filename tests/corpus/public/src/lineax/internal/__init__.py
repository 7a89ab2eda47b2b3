# Copyright 2023 Google LLC
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.


from .._misc import (
    complex_to_real_dtype as complex_to_real_dtype,
    default_floating_dtype as default_floating_dtype,
)
from .._norm import (
    max_norm as max_norm,
    rms_norm as rms_norm,
    sum_squares as sum_squares,
    tree_dot as tree_dot,
    two_norm as two_norm,
)
from .._solve import linear_solve_p as linear_solve_p
from .._solver.misc import (
    pack_structures as pack_structures,
    PackedStructures as PackedStructures,
    ravel_vector as ravel_vector,
    transpose_packed_structures as transpose_packed_structures,
    unravel_solution as unravel_solution,
)

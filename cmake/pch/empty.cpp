// The translation unit the shared precompiled headers are compiled with
// (cmake/PrecompiledHeaders.cmake); it has nothing of its own.

; Inno Setup script: the Windows installer of the desktop build (Inno Setup 6).
;
;   1. on Windows: .venv\Scripts\python installer\build.py     -> dist\Daemon\Daemon.exe (+ smoke test)
;   2. iscc installer\daemon.iss                                -> dist\installer\Daemon-0.1.0-setup.exe
;
; A per-user install (no administrator rights): the program goes to %LOCALAPPDATA%\Programs\Daemon, the
; shortcuts to the user's Start menu (and desktop, if ticked). The user's data is elsewhere, in
; %LOCALAPPDATA%\Daemon (installer/pyi_rth_daemon.py), so updates never touch it; uninstalling keeps it
; unless the user says yes to deleting it (a silent uninstall always keeps it).

#define AppName "Daemon"
#define AppVersion "0.1.0"
#define AppExe "Daemon.exe"
#define DataDir "{localappdata}\Daemon"

[Setup]
AppId={{5B0E3C2A-7D41-4F7B-9A35-2C8E6F1D9B47}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher={#AppName}
PrivilegesRequired=lowest
DefaultDirName={localappdata}\Programs\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
UsePreviousAppDir=yes
OutputDir=..\dist\installer
OutputBaseFilename={#AppName}-{#AppVersion}-setup
Compression=lzma2/max
SolidCompression=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
WizardStyle=modern
CloseApplications=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; The whole one-folder build; replaced as a unit on update.
Source: "..\dist\Daemon\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[InstallDelete]
; Files an older version shipped and this one no longer does would otherwise stay behind.
Type: filesandordirs; Name: "{app}\_internal"

[Icons]
Name: "{userprograms}\{#AppName}\{#AppName}"; Filename: "{app}\{#AppExe}"; Parameters: "gui"; WorkingDir: "{app}"; Comment: "Start Daemon (the GUI opens at http://127.0.0.1:7860)"
Name: "{userprograms}\{#AppName}\Open Daemon in the browser"; Filename: "http://127.0.0.1:7860/"
Name: "{userprograms}\{#AppName}\Daemon terminal chat"; Filename: "{app}\{#AppExe}"; Parameters: "cli"; WorkingDir: "{app}"
Name: "{userprograms}\{#AppName}\Uninstall {#AppName}"; Filename: "{uninstallexe}"
Name: "{userdesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Parameters: "gui"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Parameters: "gui"; Description: "Start {#AppName} now"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Only the program folder: the user's data folder is handled in [Code] below.
Type: filesandordirs; Name: "{app}"

[Code]
function DeleteUserData(const Folder: String): Boolean;
begin
  { Default button: No. Conversations and memory are the user's; a reinstall picks them up again. }
  Result := MsgBox('Also delete your Daemon data (conversations, memory, facts) in' + #13#10 + Folder + '?' + #13#10#13#10 +
    'Choose No to keep it for a later install.', mbConfirmation, MB_YESNO or MB_DEFBUTTON2) = IDYES;
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  Folder: String;
begin
  if CurUninstallStep = usPostUninstall then
  begin
    Folder := ExpandConstant('{#DataDir}');
    if DirExists(Folder) and (not UninstallSilent) and DeleteUserData(Folder) then
      DelTree(Folder, True, True, True);
  end;
end;
